import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isUuid } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { apiKeyPrincipal } from '#plugins/app/auth.js';
import { errorResponses } from '#schemas/common.js';
import { EventAccepted, EventBody } from '#schemas/events.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];

/**
 * POST /events: the request costs no PostgreSQL round trip and one Redis round trip (the API-key
 * limit and the buffered event in one script, plugins/app/engagement-buffer); the batched flush
 * checks that the endpoint and the notification are the key's app's.
 */
export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      // The API-key limit is counted with the buffered event (engagement.report), or by the error handler.
      onRequest: app.authenticate({ apiKey: 'subscribe_only' }),
      errorHandler: app.engagement.countFailed,
      schema: {
        tags: ['engagement'],
        summary: 'Report that a notification was shown, clicked or led to a conversion (sent by the SDK)',
        description:
          'Counted once per (notification, subscription, type), and a click on a button once per (notification, ' +
          'subscription, action) in `actionClicks`; only for a subscription the notification was pushed to. ' +
          'A conversion counts once per (notification, subscription) too: the first one counted adds its `value` to ' +
          '`conversionValue`. ' +
          "Always 202 for a valid body, whether or not the notification and the subscription exist in the key's app.",
        security: keySecurity,
        body: EventBody,
        response: {
          202: EventAccepted,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            'UNAUTHORIZED',
            'INVALID_API_KEY',
            'ORIGIN_NOT_ALLOWED',
            'RATE_LIMITED',
          ),
        },
      },
    },
    async (request, reply) => {
      const { appId } = apiKeyPrincipal(request);
      const { notificationId, endpoint, type, action, value } = request.body;
      // An action only qualifies a click, a value only a conversion; with another type they are ignored.
      const detail =
        type === 'clicked' && action ? { action } : type === 'converted' && value !== undefined ? { value } : {};
      const event = isUuid(notificationId) ? { appId, notificationId, endpoint, type, ...detail } : null;
      await app.engagement.report(request, reply, event);
      return reply.code(202).send({});
    },
  );
}
