import { type Static, Type } from 'typebox';
import { PushEndpoint, RequiredString } from './common.js';

export const MAX_TAGS = 20;

/**
 * A uid: 1 to 128 characters, not only whitespace. The emptiness check is a pattern, not
 * `minLength: 1`, so an empty uid is INVALID_INPUT (a bad value), not MISSING_FIELDS: it is optional.
 */
export const Uid = (description: string) => Type.String({ maxLength: 128, pattern: '\\S', description });

/** Tags: at most 20 pairs, keys of 1–64 `A-Z a-z 0-9 _ . -`, string values of at most 128 characters. */
export const SubscriberTags = (description: string) =>
  Type.Record(Type.String(), Type.String({ maxLength: 128 }), {
    maxProperties: MAX_TAGS,
    propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    description,
    examples: [{ lang: 'ja', plan: 'pro' }],
  });

/** A BCP 47 language tag (`ja-JP`, `zh-Hant-TW`, `es-419`), at most 35 characters. */
export const LanguageTag = (description: string) =>
  Type.String({
    maxLength: 35,
    pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$',
    description,
    examples: ['ja-JP'],
  });

/** An IANA time zone name; the API also asks the runtime's `Intl` whether it knows it (else INVALID_INPUT). */
export const TimeZoneName = (description: string) =>
  Type.String({ maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_+/-]*$', description, examples: ['Asia/Tokyo'] });

export const attributeFields = {
  language: Type.Optional(
    LanguageTag('The browser’s language (BCP 47, ≤ 35 characters); chooses the translation a send delivers'),
  ),
  timeZone: Type.Optional(
    TimeZoneName('The browser’s IANA time zone; stored as the runtime’s `Intl` names it (`Etc/UTC` → `UTC`)'),
  ),
};

export const audienceFields = {
  uid: Type.Optional(Uid('Your own user id for this browser (1–128 characters); several browsers may share one')),
  tags: Type.Optional(SubscriberTags('Your tags for this browser; replace all of its tags when present')),
};

const KEY_CHARS = '^[A-Za-z0-9_\\-+/]+={0,2}$';

/**
 * Lifts `keys.p256dh` / `keys.auth` of the browser's `PushSubscription.toJSON()` shape onto the
 * object itself (the flat shape), in place, so one schema validates both shapes. Run before validation.
 */
export function flattenKeys(subscription: unknown): void {
  if (typeof subscription !== 'object' || subscription === null || Array.isArray(subscription)) return;
  const target = subscription as Record<string, unknown>;
  const keys = target.keys;
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys)) return;
  const nested = keys as Record<string, unknown>;
  if (target.p256dh === undefined && nested.p256dh !== undefined) target.p256dh = nested.p256dh;
  if (target.auth === undefined && nested.auth !== undefined) target.auth = nested.auth;
}

/** The `keys` object of the toJSON() shape, as documented; `flattenKeys` lifts it before validation. */
export const SubscriptionKeys = () =>
  Type.Optional(
    Type.Object(
      { p256dh: Type.Optional(Type.String()), auth: Type.Optional(Type.String()) },
      { description: 'PushSubscription.toJSON() shape' },
    ),
  );

export const P256dh = () =>
  RequiredString('Subscription public key (base64url), `getKey("p256dh")`', { maxLength: 256, pattern: KEY_CHARS });
export const Auth = () =>
  RequiredString('Subscription auth secret (base64url), `getKey("auth")`', { maxLength: 128, pattern: KEY_CHARS });

/**
 * Both shapes are accepted: flat `{endpoint, p256dh, auth}` and the browser's
 * `PushSubscription.toJSON()` `{endpoint, keys: {p256dh, auth}}`. A preValidation hook lifts
 * `keys.*` to the top level, so one schema checks both and missing fields are reported first.
 */
export const SubscribeBody = Type.Object({
  // Required: an empty endpoint counts as missing (MISSING_FIELDS), as every required string does.
  endpoint: PushEndpoint(undefined, { minLength: 1 }),
  p256dh: P256dh(),
  auth: Auth(),
  keys: SubscriptionKeys(),
  expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'From toJSON(); ignored' })),
  ...audienceFields,
  ...attributeFields,
  uidSignature: Type.Optional(
    Type.String({
      maxLength: 128,
      description:
        'Required with a `subscribe_only` key when `uid` is set: lowercase hex HMAC-SHA-256 of the uid under the app’s identity secret (with `signatureExpires`: of uid + NUL + the expiry in decimal)',
    }),
  ),
  tagsSignature: Type.Optional(
    Type.String({
      maxLength: 128,
      description:
        'Required with a `subscribe_only` key when `tags` are set and the app has `requireSignedTags`: lowercase hex HMAC-SHA-256 under the identity secret of the tags as JSON with keys sorted (with `signatureExpires`: + NUL + the expiry in decimal)',
    }),
  ),
  signatureExpires: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 99_999_999_999,
      description:
        'Unix time (seconds) after which uidSignature and tagsSignature no longer count; both are then made over it. Required when the app has `signaturesExpire`',
    }),
  ),
  applicationServerKey: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'The VAPID public key (base64url) the browser subscribed with. Absent: the app’s current key. Not one of the app’s current or earlier keys: 400 INVALID_INPUT',
    }),
  ),
});

export const UpdateSubscriptionBody = Type.Object({
  endpoint: PushEndpoint('The subscription to change, as subscribed', { minLength: 1 }),
  uid: Type.Optional(
    Type.Union([Uid('Your own user id for this browser'), Type.Null()], { description: 'null removes the uid' }),
  ),
  tags: audienceFields.tags,
  language: Type.Optional(
    Type.Union([LanguageTag('The browser’s language (BCP 47)'), Type.Null()], { description: 'null removes it' }),
  ),
  timeZone: Type.Optional(
    Type.Union([TimeZoneName('The browser’s IANA time zone'), Type.Null()], { description: 'null removes it' }),
  ),
});
export type UpdateSubscriptionBody = Static<typeof UpdateSubscriptionBody>;

export const SubscribeResponse = Type.Object({ subscriber: Type.Object({ id: Type.String() }) });
// The same field checks as subscribing (INVALID_URL, INVALID_ENDPOINT): the contract's order holds on every route.
export const UnsubscribeBody = Type.Object({
  endpoint: PushEndpoint('The endpoint to remove, as subscribed', { minLength: 1 }),
});
export const VapidKeyResponse = Type.Object({
  vapidPublicKey: Type.String({ description: "The key's app VAPID public key, for `applicationServerKey`" }),
});
