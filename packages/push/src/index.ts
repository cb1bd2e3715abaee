export {
  decodeSubscriptionKeys,
  encryptPayload,
  type FixedEncryptionInputs,
  isP256Point,
  isValidSubscriptionKeys,
  MAX_PLAINTEXT_BYTES,
  RECORD_SIZE,
  type SubscriptionKeys,
} from './encryption.js';
export {
  createEncryptionPool,
  type EncryptedBody,
  type EncryptionPool,
  type EncryptionPoolOptions,
  type TemplateLinks,
} from './encryption-pool.js';
export {
  type AnswerHeaders,
  failureKey,
  isWnsOrigin,
  outcomeForAnswer,
  outcomeForStatus,
  parseRetryAfter,
  refusedBySubscription,
} from './outcome.js';
export {
  CLICK_TOKEN_LENGTH,
  type ClickTarget,
  ClickTokens,
  type ContentAction,
  type DeclarativeTemplate,
  declarativeTemplate,
  deliveredPayloadBytes,
  fillTemplate,
  legacyPayload,
  MAX_BROWSER_PAYLOAD_BYTES,
  type NotificationContent,
  PLACEHOLDER_ID,
  templateBytes,
  templateSlots,
} from './payload.js';
export { buildPushRequest, type PushRequest } from './push-request.js';
export { createPushSender } from './sender.js';
export { type Translation, type Translations, translatedContent, translationChooser } from './translations.js';
export type {
  PushOptions,
  PushOutcome,
  PushSender,
  PushSenderOptions,
  PushTarget,
  Urgency,
  VapidCredentials,
} from './types.js';
export {
  checkVapidKeyPair,
  JWT_LIFETIME_SECONDS,
  JWT_REFRESH_MARGIN_SECONDS,
  VapidKeyError,
  type VapidKeyPair,
  VapidSigner,
} from './vapid.js';
export {
  deliveredContents,
  VARIANT_LETTERS,
  type Variant,
  variantContent,
  variantLetters,
} from './variants.js';
