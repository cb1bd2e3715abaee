import { Type } from 'typebox';
import { RequiredString } from './common.js';

const WebhookEvent = Type.Union(
  [Type.Literal('notification.completed'), Type.Literal('notification.failed'), Type.Literal('subscription.expired')],
  { description: 'An event type' },
);

export const PutWebhookBody = Type.Object({
  url: RequiredString(
    'Receiver URL: https:// and a public address (hosts in WEBHOOK_ALLOWED_HOSTS are exempt and may use http://)',
    { maxLength: 2048, examples: ['https://example.com/webhooks/push'] },
  ),
  events: Type.Array(WebhookEvent, { minItems: 1, maxItems: 3, uniqueItems: true, description: 'Events to receive' }),
});

const WebhookFields = {
  url: Type.String(),
  events: Type.Array(WebhookEvent),
};

export const WebhookWithSecretResponse = Type.Object({
  webhook: Type.Object({
    ...WebhookFields,
    secret: Type.String({ description: 'Signing secret (`whsec_…`): shown only now' }),
  }),
});

export const WebhookResponse = Type.Object({ webhook: Type.Object(WebhookFields) });

export const SecretResponse = Type.Object({
  webhook: Type.Object({
    ...WebhookFields,
    secret: Type.String({
      description: 'The new signing secret (`whsec_…`): shown only now; the old one stops at once',
    }),
  }),
});

export const WebhookDeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Attempts, 1 to 100' })),
});

export const WebhookAttemptSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  messageId: Type.String({ description: '`webhook-id` of the message; the same on every retry' }),
  type: WebhookEvent,
  url: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when no answer came' }),
  durationMs: Type.Integer(),
  response: Type.Union([Type.String(), Type.Null()], { description: 'The first 4 KiB of the answer' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why no answer came (refused address, timeout, …)' }),
  createdAt: Type.String({ format: 'date-time' }),
  messageStatus: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
});

export const WebhookDeliveriesResponse = Type.Object({
  deliveries: Type.Array(WebhookAttemptSchema, { description: 'Most recent attempts first' }),
});

export const WebhookMessageParams = Type.Object({
  appId: Type.String({ description: 'App id (uuid)' }),
  messageId: Type.String({ description: 'Message id (`webhook-id`)' }),
});

export const ResendResponse = Type.Object({
  message: Type.Object({ id: Type.String(), status: Type.Literal('pending') }),
});
