import {
  DEFAULT_TTL_SECONDS,
  MAX_ACTION_TITLE_LENGTH,
  MAX_ACTIONS,
  MAX_BATCH_ENDPOINTS,
  MAX_DATA_BYTES,
  MAX_SAMPLE,
  MAX_TAG_LENGTH,
  MAX_TARGET_UIDS,
  MAX_THROTTLE_PER_MINUTE,
  MAX_TRANSLATIONS,
  MAX_TTL_SECONDS,
  MAX_VARIANTS,
  MAX_WINNER_AFTER_MINUTES,
  MIN_SAMPLE,
  MIN_THROTTLE_PER_MINUTE,
} from '@webpush/plans';
import { type Static, Type } from 'typebox';
import { NextCursor, PageQueryFields, PushEndpoint, RequiredString } from './common.js';
import { SegmentNode } from './segments.js';
import { SubscriberTags, Uid } from './subscriptions.js';

// The figures live in @webpush/plans, which the dashboard's forms read too.
export {
  DEFAULT_TTL_SECONDS,
  MAX_ACTIONS,
  MAX_BATCH_ENDPOINTS,
  MAX_DATA_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_SCHEDULE_AHEAD_MS,
  MAX_TARGET_UIDS,
  MAX_TTL_SECONDS,
} from '@webpush/plans';

/**
 * A URL of the payload: only `https://` (INVALID_URL). Unlike `HttpsUrl` it has no length cap of its
 * own: the 3,072-byte payload rule bounds it and answers 413, as the contract says.
 */
const PayloadUrl = (description: string) =>
  Type.String({ pattern: '^https://', description, examples: ['https://example.com/'] });

/** A button's `action`: 1–64 characters of `A-Z a-z 0-9 _ -`. */
export const ActionName = (description: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description, examples: ['open'] });

const NotificationAction = Type.Object(
  {
    action: ActionName('Names the button; unique within `actions`, reported with its clicks'),
    title: Type.String({
      minLength: 1,
      maxLength: MAX_ACTION_TITLE_LENGTH,
      description: `The button label (1–${MAX_ACTION_TITLE_LENGTH} characters)`,
    }),
    url: Type.Optional(PayloadUrl("The page the button opens (default: the notification's `url`)")),
    icon: Type.Optional(PayloadUrl('Icon of the button')),
  },
  { additionalProperties: false },
);

const richFields = {
  image: Type.Optional(PayloadUrl('A large picture shown in the notification')),
  actions: Type.Optional(
    Type.Array(NotificationAction, {
      maxItems: MAX_ACTIONS,
      description: `At most ${MAX_ACTIONS} buttons; a duplicate \`action\` is INVALID_INPUT`,
    }),
  ),
  requireInteraction: Type.Optional(Type.Boolean({ description: 'Stays on screen until the person acts on it' })),
  silent: Type.Optional(Type.Boolean({ description: 'No sound or vibration' })),
  renotify: Type.Optional(
    Type.Boolean({ description: 'Alert again when it replaces a notification with the same `tag` (needs `tag`)' }),
  ),
  tag: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_TAG_LENGTH,
      description: 'A later notification with the same tag replaces the earlier one on the device',
    }),
  ),
  data: Type.Optional(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: `Handed to the page's service worker; at most ${MAX_DATA_BYTES} bytes as UTF-8 JSON (else 413)`,
      },
    ),
  ),
};

export { MAX_TRANSLATIONS };

const Translation = Type.Object(
  {
    title: RequiredString('The title in this language'),
    body: Type.Optional(Type.String({ description: 'The body in this language (absent: the send’s)' })),
    url: Type.Optional(PayloadUrl('The page in this language (absent: the send’s)')),
  },
  { additionalProperties: false },
);

const Variant = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, description: 'The title of this variant (absent: the send’s)' })),
    body: Type.Optional(Type.String({ description: 'The body of this variant (absent: the send’s)' })),
    url: Type.Optional(PayloadUrl('The page of this variant (absent: the send’s)')),
    icon: Type.Optional(PayloadUrl('The icon of this variant (absent: the send’s)')),
    image: Type.Optional(PayloadUrl('The picture of this variant (absent: the send’s)')),
    actions: Type.Optional(
      Type.Array(NotificationAction, { maxItems: MAX_ACTIONS, description: 'The buttons of this variant' }),
    ),
  },
  { additionalProperties: false },
);

const abTestFields = {
  variants: Type.Optional(
    Type.Array(Variant, {
      minItems: 1,
      maxItems: MAX_VARIANTS,
      description: `An A/B test: 1–${MAX_VARIANTS} alternatives to the send’s own content, which is variant \`A\` (these are \`B\`, \`C\`, \`D\`). Each target receives one variant, chosen at random with equal chances; a field an alternative leaves out is the send’s. Not with \`translations\`.`,
      examples: [[{ title: 'Last day: 30% off' }]],
    }),
  ),
  sample: Type.Optional(
    Type.Number({
      minimum: MIN_SAMPLE,
      maximum: MAX_SAMPLE,
      description:
        'With `winnerAfterMinutes`: only this share of the targets (rounded up) is split among the variants first',
      examples: [0.2],
    }),
  ),
  winnerAfterMinutes: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_WINNER_AFTER_MINUTES,
      description:
        'With `sample`: this many minutes after the sample went out, the variant with the highest `clicked / sent` (ties: the earlier letter) is pushed to every other target',
      examples: [60],
    }),
  ),
};

const payloadFields = {
  title: RequiredString('Notification title'),
  body: RequiredString('Notification body'),
  url: Type.Optional(PayloadUrl('Opened when the notification is clicked')),
  icon: Type.Optional(PayloadUrl('Icon image')),
  badge: Type.Optional(PayloadUrl('Badge image')),
  ...richFields,
  appBadge: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 999,
      description: 'The number shown on the app’s icon (installed web apps; `navigator.setAppBadge`); 0 clears it',
    }),
  ),
  translations: Type.Optional(
    Type.Record(Type.String(), Translation, {
      maxProperties: MAX_TRANSLATIONS,
      propertyNames: { pattern: '^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$', maxLength: 35 },
      description: `The send in other languages (at most ${MAX_TRANSLATIONS}), by language tag: a subscription receives the entry of its language, else of its language's first subtag (\`ja\` for \`ja-JP\`), else the send's own text; a field an entry leaves out is the send's`,
      examples: [{ ja: { title: 'セール開始', body: '今日から 30% オフ' } }],
    }),
  ),
  ...abTestFields,
  ttl: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_TTL_SECONDS,
      default: DEFAULT_TTL_SECONDS,
      description: 'Seconds the push service keeps the message for an offline browser',
    }),
  ),
  urgency: Type.Optional(
    Type.Union([Type.Literal('very-low'), Type.Literal('low'), Type.Literal('normal'), Type.Literal('high')], {
      default: 'normal',
      description: 'Push `Urgency` header',
    }),
  ),
  topic: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,32}$',
      description: 'Push `Topic` header (≤ 32 URL-safe base64 characters): a newer message replaces an undelivered one',
    }),
  ),
};

export const NotifyBody = Type.Object({
  ...payloadFields,
  endpoint: Type.Optional(
    PushEndpoint(
      'Send only to this subscription of the app; without it (and without `uids` or `tags`), to every active subscriber',
    ),
  ),
  uids: Type.Optional(
    Type.Array(Uid('A user id given to `POST /subscribe`'), {
      minItems: 1,
      maxItems: MAX_TARGET_UIDS,
      description: `Send to every active subscription carrying one of these uids (1 to ${MAX_TARGET_UIDS}). At most one of endpoint, uids, tags, segment, segmentId.`,
    }),
  ),
  tags: Type.Optional(
    SubscriberTags(
      'Send to every active subscription whose tags contain all of these key/value pairs. At most one of endpoint, uids, tags, segment, segmentId.',
    ),
  ),
  segment: Type.Optional(SegmentNode),
  segmentId: Type.Optional(
    Type.String({ description: 'A saved segment of the app (`POST /apps/{appId}/segments`); another app’s is 404' }),
  ),
  sendAt: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Schedule the send (RFC 3339, in the future, at most 30 days ahead): answered `status: "scheduled"`; the audience is resolved and the month’s usage reserved when it starts',
      examples: ['2030-01-01T09:00:00Z'],
    }),
  ),
  localTime: Type.Optional(
    Type.String({
      pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
      description:
        'Deliver at this time of day (`HH:MM`, 24-hour) in each subscriber’s own time zone (the app’s `timeZone` for those without one), within 24 hours: answered `status: "scheduled"`; audience, targets and usage are settled now. Not with `sendAt`.',
      examples: ['09:00'],
    }),
  ),
  throttle: Type.Optional(
    Type.Object(
      {
        perMinute: Type.Integer({
          minimum: MIN_THROTTLE_PER_MINUTE,
          maximum: MAX_THROTTLE_PER_MINUTE,
          description: 'At most this many pushes of this send in any minute (10 to 1,000,000)',
        }),
      },
      { additionalProperties: false, description: 'Spread the send’s pushes over time' },
    ),
  ),
});
export type NotifyBody = Static<typeof NotifyBody>;

export const NotifyBatchBody = Type.Object({
  endpoints: Type.Array(PushEndpoint(), {
    minItems: 1,
    maxItems: MAX_BATCH_ENDPOINTS,
    description: `Subscriptions of the app to send to (1 to ${MAX_BATCH_ENDPOINTS})`,
  }),
  ...payloadFields,
});
export type NotifyBatchBody = Static<typeof NotifyBatchBody>;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'The same key from the same app within 24 h returns the first answer and queues nothing new',
    }),
  ),
});

const AcceptedNotification = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('queued'), Type.Literal('scheduled')], {
    description: '`scheduled` for a send with `sendAt` or `localTime`',
  }),
  targets: Type.Integer({
    description: 'Subscriptions this send goes to; counted in monthly usage (0 for a scheduled send until it starts)',
  }),
});

export const NotifyResponse = Type.Object({ notification: AcceptedNotification });

export const NotifyBatchResponse = Type.Object({
  notification: AcceptedNotification,
  unknownEndpoints: Type.Array(Type.String(), { description: 'Endpoints that are not subscriptions of the app' }),
  expiredEndpoints: Type.Array(Type.String(), {
    description: 'Endpoints of the app whose subscription has expired: not sent to',
  }),
});

export const NotificationIdParams = Type.Object({ id: Type.String({ description: 'Notification id (uuid)' }) });

const VariantResult = Type.Object({
  name: Type.String({ description: 'The variant’s letter: `A` is the send’s own content', examples: ['B'] }),
  sent: Type.Integer(),
  failed: Type.Integer(),
  expired: Type.Integer(),
  shown: Type.Integer(),
  clicked: Type.Integer(),
  converted: Type.Integer(),
  title: Type.String({ description: 'What this variant sent: its title' }),
  body: Type.String({ description: 'What this variant sent: its body' }),
  url: Type.Optional(Type.String({ description: 'Its url, when it had one' })),
});

export const NotificationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: Type.Union([
      Type.Literal('scheduled'),
      Type.Literal('queued'),
      Type.Literal('sending'),
      Type.Literal('completed'),
      Type.Literal('failed'),
      Type.Literal('canceled'),
    ]),
    targets: Type.Integer({ description: 'Subscriptions the send goes to' }),
    sent: Type.Integer(),
    failed: Type.Integer(),
    expired: Type.Integer({ description: 'Subscriptions found expired (404/410) while sending' }),
    skipped: Type.Integer({
      description:
        'Targets held back by the app’s frequency cap (`sent + failed + expired + skipped == targets` once finished)',
    }),
    shown: Type.Integer({
      description: 'Subscriptions that displayed it (reported by the SDK service worker, counted once each)',
    }),
    clicked: Type.Integer({ description: 'Subscriptions that clicked it (counted once each)' }),
    actionClicks: Type.Record(Type.String(), Type.Integer(), {
      description: 'Subscriptions that clicked each button, by its `action` (each counted once per action)',
    }),
    converted: Type.Integer({
      description: 'Subscriptions that converted after it (reported with `type: "converted"`, counted once each)',
    }),
    conversionValue: Type.Number({ description: 'The sum of the counted conversions’ `value`s' }),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    sendAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When a scheduled send starts (or started); absent for a send accepted to go at once',
      }),
    ),
    errorCode: Type.Optional(
      Type.String({
        description:
          'Why a send ended `failed` without sending: `MONTHLY_LIMIT_EXCEEDED`, or `PAYLOAD_TOO_LARGE` when a scheduled send’s payload was over 3,993 bytes in its app’s push format at its start (the app switched to declarative after it was accepted)',
      }),
    ),
    failureReasons: Type.Optional(
      Type.Record(Type.String(), Type.Integer(), {
        description:
          'Present when some push failed: why pushes failed, counted per answer: the push service’s status and its reason when it gave one (`{"403 BadJwtToken": 12}`), or what went wrong before an answer (`network error: ECONNREFUSED`). `403 BadJwtToken` from Apple almost always means VAPID_SUBJECT is a localhost or example address.',
        examples: [{ '403 BadJwtToken': 12, '400 VapidPkHashMismatch': 1 }],
      }),
    ),
    title: Type.String({ description: 'What was sent: the payload title' }),
    body: Type.String({ description: 'What was sent: the payload body' }),
    url: Type.Optional(Type.String({ description: 'The payload url, when it had one' })),
    icon: Type.Optional(Type.String({ description: 'The payload icon, when it had one' })),
    badge: Type.Optional(Type.String({ description: 'The payload badge, when it had one' })),
    image: Type.Optional(Type.String({ description: 'The payload image, when it had one' })),
    actions: Type.Optional(Type.Array(NotificationAction, { description: 'The buttons, when it had any' })),
    tag: Type.Optional(Type.String({ description: 'The payload tag, when it had one' })),
    appBadge: Type.Optional(Type.Integer({ description: 'The app badge, when it had one' })),
    translations: Type.Optional(
      Type.Record(Type.String(), Translation, { description: 'The translations, when it had any' }),
    ),
    variants: Type.Optional(
      Type.Array(VariantResult, {
        description: 'An A/B test’s variants (only a send with variants): each one’s content and counts, `A` first',
      }),
    ),
    winner: Type.Union([Type.String(), Type.Null()], {
      description: 'The variant chosen after a sample (`sample` + `winnerAfterMinutes`), once chosen; else null',
    }),
    winnerAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'While a sample is being judged: when its winner is due (absent before the sample is planned and once chosen)',
      }),
    ),
  },
  {
    description:
      'A notification: its progress (`sent + failed + expired + skipped == targets` once finished) and content',
  },
);

export const NotificationResponse = Type.Object({ notification: NotificationSchema });

export const NotificationListQuery = Type.Object(PageQueryFields);

export const NotificationListResponse = Type.Object({
  notifications: Type.Array(NotificationSchema, { description: 'Newest first' }),
  nextCursor: NextCursor,
});
