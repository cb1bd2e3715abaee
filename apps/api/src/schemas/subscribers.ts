import { MAX_IMPORT_SUBSCRIBERS } from '@webpush/plans';
import { Type } from 'typebox';
import { NextCursor, PageQueryFields, PushEndpoint } from './common.js';
import {
  Auth,
  attributeFields,
  audienceFields,
  LanguageTag,
  P256dh,
  SubscriptionKeys,
  TimeZoneName,
} from './subscriptions.js';

const SubscriptionStatus = (description?: string) =>
  Type.Union([Type.Literal('active'), Type.Literal('expired')], description ? { description } : {});

export const SubscriberListQuery = Type.Object({
  status: Type.Optional(SubscriptionStatus('Only subscribers of this status; absent: both')),
  uid: Type.Optional(Type.String({ maxLength: 128, pattern: '\\S', description: 'Only the subscribers of this uid' })),
  tag: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_.-]{1,64}:',
      maxLength: 193,
      description: 'Only the subscribers carrying this tag, as `key:value` (the value may be empty or contain `:`)',
      examples: ['lang:ja'],
    }),
  ),
  language: Type.Optional(
    LanguageTag('Only the subscribers whose language is this tag or starts with it and `-` (`ja` matches `ja-JP`)'),
  ),
  timeZone: Type.Optional(
    TimeZoneName('Only the subscribers in this IANA time zone (an unknown name: 400 INVALID_INPUT)'),
  ),
  ...PageQueryFields,
});

export const SubscriberSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  endpoint: Type.String({ description: 'Push endpoint; its host tells the push service (FCM, Mozilla, Apple, WNS)' }),
  status: SubscriptionStatus(),
  uid: Type.Union([Type.String(), Type.Null()], {
    description: 'Your user id for this subscriber (none: null)',
  }),
  tags: Type.Record(Type.String(), Type.String(), { description: 'Your tags for this subscriber (none: {})' }),
  language: Type.Union([Type.String(), Type.Null()], {
    description: 'The browser’s language (BCP 47) as the SDK or your page gave it; null when unknown',
  }),
  timeZone: Type.Union([Type.String(), Type.Null()], {
    description: 'The browser’s IANA time zone; null when unknown',
  }),
  vapidPublicKey: Type.Union([Type.String(), Type.Null()], {
    description:
      'The VAPID public key the subscription was made with (it is pushed with that key); null for an expired subscription whose retired key was deleted',
  }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const SubscriberListResponse = Type.Object({
  subscribers: Type.Array(SubscriberSchema, { description: 'Newest first' }),
  nextCursor: NextCursor,
});

export const SubscriberParams = Type.Object({
  appId: Type.String({ description: 'App id (uuid)' }),
  subscriberId: Type.String({ description: 'Subscriber id (uuid)' }),
});

/**
 * One subscription of an import as documented: the browser's `PushSubscription.toJSON()` with your
 * uid and tags, and its language and time zone. Each is checked on its own (`ImportEntryChecks`), so a bad one is refused alone.
 */
const ImportEntry = Type.Object({
  endpoint: Type.String({
    description: 'Push endpoint, exactly as the browser gave it (on the push-service allow-list)',
  }),
  keys: Type.Object({
    p256dh: Type.String({ description: 'Subscription public key (base64url)' }),
    auth: Type.String({ description: 'Subscription auth secret (base64url)' }),
  }),
  ...audienceFields,
  ...attributeFields,
});

export const ImportBody = Type.Object({
  subscribers: Type.Array(ImportEntry, {
    minItems: 1,
    maxItems: MAX_IMPORT_SUBSCRIBERS,
    description: `1 to ${MAX_IMPORT_SUBSCRIBERS.toLocaleString('en')} subscriptions, each checked as POST /subscribe checks one (no uidSignature needed). A list that is not an array, or of another length, is 400 INVALID_INPUT; a bad entry is refused alone, in \`rejected\``,
  }),
});

/** What the route validates before the handler: the list's shape only. */
export const ImportEnvelope = Type.Object({
  subscribers: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_IMPORT_SUBSCRIBERS }),
});

/** One entry, checked after `flattenKeys` as POST /subscribe checks its body (codes in the contract's order). */
export const ImportEntryChecks = Type.Object({
  endpoint: PushEndpoint(undefined, { minLength: 1 }),
  p256dh: P256dh(),
  auth: Auth(),
  keys: SubscriptionKeys(),
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  ...audienceFields,
  ...attributeFields,
});

export const ImportResponse = Type.Object({
  imported: Type.Integer({ description: 'New subscriptions stored' }),
  updated: Type.Integer({
    description:
      'Entries whose endpoint the app already had: its keys, and uid, tags, language and time zone when given, replaced; re-activated if it had expired',
  }),
  rejected: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Position in `subscribers`, from 0' }),
      code: Type.String({
        description:
          "Why: MISSING_FIELDS, INVALID_URL, INVALID_ENDPOINT or INVALID_INPUT as POST /subscribe would answer, or SUBSCRIBER_LIMIT_EXCEEDED past the plan's subscriber limit",
      }),
    }),
    { description: 'The entries not stored, in list order' },
  ),
});

export const ExportQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('csv'), Type.Literal('jsonl')], {
      default: 'csv',
      description:
        "`csv` (default): every subscription, without keys. `jsonl`: the active subscriptions with their keys, one `PushSubscription.toJSON()`-shaped object a line, for an import elsewhere. Keys let anyone holding the app's VAPID private key push to those browsers: keep the file as you keep that key",
    }),
  ),
});

export const EraseSubscriberQuery = Type.Object({
  uid: Type.String({
    maxLength: 128,
    pattern: '\\S',
    description: 'The visitor to erase: every subscription carrying this uid, active or expired',
  }),
});

export const EraseSubscriberResponse = Type.Object({
  deleted: Type.Integer({ description: 'How many subscriptions were deleted (0 when none carried the uid)' }),
});
