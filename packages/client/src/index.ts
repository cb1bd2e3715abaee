export * from './client.js';
export { retryAfterSeconds, WebPushError } from './errors.js';
export type { paths } from './openapi.js';
export type { RetryOptions } from './retry.js';
export {
  signUid,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from './signatures.js';
