import {
  MAX_ALLOWED_ORIGINS,
  MAX_FREQUENCY_CAP_HOURS,
  MAX_FREQUENCY_CAP_PUSHES,
  MAX_NAME_LENGTH,
} from '@webpush/plans';
import { Type } from 'typebox';
import { HttpsUrl, RequiredString } from './common.js';
import { TimeZoneName } from './subscriptions.js';

const FrequencyCap = Type.Object(
  {
    max: Type.Integer({
      minimum: 1,
      maximum: MAX_FREQUENCY_CAP_PUSHES,
      description: `Pushes (1–${MAX_FREQUENCY_CAP_PUSHES})`,
    }),
    hours: Type.Integer({
      minimum: 1,
      maximum: MAX_FREQUENCY_CAP_HOURS,
      description: `In this many hours (1–${MAX_FREQUENCY_CAP_HOURS})`,
    }),
  },
  { additionalProperties: false },
);

const PushFormat = Type.Union([Type.Literal('legacy'), Type.Literal('declarative')], {
  description:
    'What the browsers receive: `legacy` (the SDK service worker shows it) or `declarative` (a W3C declarative push message Safari 18.4+ shows without a service worker; other browsers through the SDK)',
});

/** The roles on an app (docs/accounts.md, "Teams"). */
export const MemberRole = Type.Union([Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')], {
  description:
    '`admin`: all the owner may do but delete the app; `editor`: send, cancel, segments and read; `viewer`: read',
});
export const AppRole = Type.Union(
  [Type.Literal('owner'), Type.Literal('admin'), Type.Literal('editor'), Type.Literal('viewer')],
  {
    description: "The caller's role on the app: `owner`, or the member's role",
  },
);

export const AppSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  vapidPublicKey: Type.String({
    description: "VAPID public key (base64url, uncompressed P-256 point): the browser's applicationServerKey",
  }),
  createdAt: Type.String({ format: 'date-time' }),
  allowedOrigins: Type.Array(Type.String(), {
    description:
      'Origins from which the subscribe_only keys of this app may be used (checked against the Origin header); empty: any origin',
  }),
  requireSignedTags: Type.Boolean({
    description:
      'When true, tags set with a subscribe_only key must come with tagsSignature (HMAC-SHA-256 under the identity secret), else 403 INVALID_UID_SIGNATURE',
  }),
  signaturesExpire: Type.Boolean({
    description:
      'When true, every uidSignature and tagsSignature must be made over an expiry (signatureExpires, Unix seconds) that has not passed',
  }),
  pushFormat: PushFormat,
  defaultUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'The page a click opens when a notification has no `url`',
  }),
  timeZone: Type.String({ description: 'The IANA time zone of subscriptions that have none (default `UTC`)' }),
  frequencyCap: Type.Union([FrequencyCap, Type.Null()], {
    description: 'At most `max` pushes of this app to one subscription in `hours`; null: no cap',
  }),
  role: AppRole,
});

export const AppStatsSchema = Type.Object({
  activeSubscribers: Type.Integer(),
  expiredSubscribers: Type.Integer(),
  sendsThisMonth: Type.Integer({ description: 'Sends accepted this calendar month (UTC)' }),
});

const VapidKey = (description: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_\\-+/]+={0,2}$', description });

export const CreateAppBody = Type.Object({
  name: RequiredString('Display name', { maxLength: MAX_NAME_LENGTH, examples: ['My blog'] }),
  vapidKeys: Type.Optional(
    Type.Object(
      {
        publicKey: VapidKey('The 65-byte uncompressed P-256 public key (base64url)'),
        privateKey: VapidKey('The 32-byte P-256 private key (base64url); stored encrypted, never shown again'),
      },
      {
        description:
          'Your own VAPID key pair (the one your current subscribers were made with), instead of a new one: the app signs with it, so those subscriptions keep working once imported. A private key that does not give the public key is 400 INVALID_INPUT',
      },
    ),
  ),
});
export const UpdateAppBody = Type.Object({
  name: Type.Optional(RequiredString('Display name', { maxLength: MAX_NAME_LENGTH })),
  allowedOrigins: Type.Optional(
    Type.Array(
      Type.String({
        maxLength: 300,
        description: '`https://host[:port]` or `http://localhost[:port]`, no path or trailing slash',
        examples: ['https://www.example.com'],
      }),
      {
        maxItems: MAX_ALLOWED_ORIGINS,
        description: `At most ${MAX_ALLOWED_ORIGINS}. When not empty, subscribe_only keys of the app answer 403 ORIGIN_NOT_ALLOWED to requests from other origins or without an Origin header. [] allows any origin again.`,
      },
    ),
  ),
  requireSignedTags: Type.Optional(
    Type.Boolean({ description: 'Require tagsSignature for tags set with subscribe_only keys' }),
  ),
  signaturesExpire: Type.Optional(
    Type.Boolean({ description: 'Require an unexpired signatureExpires in every uid and tags signature' }),
  ),
  pushFormat: Type.Optional(PushFormat),
  defaultUrl: Type.Optional(
    Type.Union([HttpsUrl('The page a click opens when a notification has no `url`; null clears it'), Type.Null()]),
  ),
  timeZone: Type.Optional(
    TimeZoneName('The zone of subscriptions that have none; a name `Intl` does not know is INVALID_INPUT'),
  ),
  frequencyCap: Type.Optional(
    Type.Union([FrequencyCap, Type.Null()], {
      description:
        '`{max, hours}`: at most `max` pushes of this app to one subscription in `hours`; null removes the cap',
    }),
  ),
});
export const AppResponse = Type.Object({ app: AppSchema });
export const AppWithStatsResponse = Type.Object({
  app: Type.Intersect([AppSchema, Type.Object({ stats: AppStatsSchema })]),
});
export const AppListResponse = Type.Object({
  apps: Type.Array(
    Type.Intersect([
      AppSchema,
      Type.Object({
        stats: Type.Object(
          {
            activeSubscribers: Type.Integer(),
            sendsThisMonth: Type.Integer({ description: 'Sends accepted this calendar month (UTC)' }),
          },
          { description: 'What the app’s card shows; GET /apps/{appId} has the expired subscribers too' },
        ),
      }),
    ]),
  ),
});

export const IdentitySecretResponse = Type.Object({
  secret: Type.String({
    description:
      'The app’s identity secret: your server signs each uid with it (lowercase hex HMAC-SHA-256 of the uid). Shown only now.',
  }),
});
