import { MAX_WEBHOOK_URL_LENGTH } from '@webpush/plans';
import { Type } from 'typebox';
import { RequiredString } from './common.js';

const WebhookEvent = Type.Union(
  [Type.Literal('notification.completed'), Type.Literal('notification.failed'), Type.Literal('subscription.expired')],
  { description: 'An event type' },
);

export const PutWebhookBody = Type.Object({
  url: RequiredString(
    'Receiver URL: https:// and a public address (hosts in WEBHOOK_ALLOWED_HOSTS are exempt and may use http://)',
    { maxLength: MAX_WEBHOOK_URL_LENGTH, examples: ['https://example.com/webhooks/push'] },
  ),
  events: Type.Array(WebhookEvent, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'Events to receive' }),
});

const NullableDate = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

/** The circuit breaker's state, as every worker shares it. */
const WebhookBreakerFields = {
  status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('disabled')], {
    description:
      '`active`: deliveries go out; `paused`: failed attempts in a row paused them until `pausedUntil` ' +
      '(then one probe; its success ends the pause); `disabled`: every attempt failed for ' +
      'WEBHOOK_DISABLE_AFTER_MS, nothing is sent (events stay pending) until resumed',
  }),
  failuresInARow: Type.Integer({ minimum: 0, description: 'Failed attempts since the last delivered one' }),
  pausedUntil: NullableDate('When a paused webhook sends its next attempt; null when not paused'),
  failingSince: NullableDate('The first failure of the current streak; null when the last attempt succeeded'),
  lastError: Type.Union(
    [
      Type.Object({
        reason: Type.String({
          description: 'Short: `HTTP 500`, `timeout`, `connection refused`… never the answer',
        }),
        status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when no answer came' }),
        at: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ],
    { description: 'The most recent failed attempt (kept after a recovery); null when none failed' },
  ),
  disabledAt: NullableDate('When deliveries were disabled; null unless `status` is `disabled`'),
};

const WebhookFields = {
  url: Type.String(),
  events: Type.Array(WebhookEvent),
  ...WebhookBreakerFields,
};

export const WebhookWithSecretResponse = Type.Object({
  webhook: Type.Object({
    ...WebhookFields,
    secret: Type.String({
      description: 'Signing secret (`whsec_…`, Standard Webhooks): keep it; GET does not show it again',
    }),
  }),
});

export const WebhookResponse = Type.Object({ webhook: Type.Object(WebhookFields) });
export const WebhookOrNoneResponse = Type.Object({
  webhook: Type.Union([Type.Object(WebhookFields), Type.Null()], { description: 'null: the app has no webhook' }),
});

export const RotatedSecretResponse = Type.Object({
  webhook: Type.Object({
    ...WebhookFields,
    secret: Type.String({
      description: 'The new signing secret (`whsec_…`): shown only now; the old one stops signing at once',
    }),
  }),
});

export const WebhookDeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Attempts, 1 to 100' })),
});

export const WebhookAttemptSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The attempt' }),
  messageId: Type.String({ description: 'The event: its `webhook-id`, the same on every retry' }),
  type: WebhookEvent,
  url: Type.String({ description: 'Where this attempt went' }),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when no answer came' }),
  durationMs: Type.Integer(),
  response: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KiB of the answer' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why no answer came (refused address, timeout, connection error)',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  messageStatus: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
    description: 'Where the event stands now: `pending` while retries remain',
  }),
});

export const WebhookDeliveriesResponse = Type.Object({
  deliveries: Type.Array(WebhookAttemptSchema, { description: 'Most recent attempts first' }),
});

export const WebhookDeliveryParams = Type.Object({
  appId: Type.String({ description: 'App id (uuid)' }),
  deliveryId: Type.String({ description: 'An attempt id from the deliveries list' }),
});

export const ResendResponse = Type.Object({
  delivery: Type.Object({
    messageId: Type.String({ description: 'The event sent again, with this same `webhook-id`' }),
    status: Type.Literal('pending'),
  }),
});
