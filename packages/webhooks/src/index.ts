export { isAllowedHost, isPublicAddress } from './address-policy.js';
export {
  bypassesProxy,
  createWebhookClient,
  DEFAULT_RESPONSE_CAP_BYTES,
  proxyFor,
  RefusedAddressError,
  type WebhookAttemptResult,
  type WebhookClient,
  type WebhookClientOptions,
  type WebhookProxy,
  type WebhookRequest,
} from './deliver.js';
export {
  createNameResolver,
  isLocalhostName,
  type NameResolver,
  type ResolvedAddress,
  type ResolverOptions,
} from './resolver.js';
export { generateWebhookSecret, signWebhook } from './signature.js';
export {
  checkWebhookUrl,
  checkWebhookUrlSyntax,
  type TargetCheck,
  type TargetPolicy,
} from './target.js';
