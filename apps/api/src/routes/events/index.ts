import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findEngagementTarget, isUuid } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { apiKeyPrincipal } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { EventAccepted, EventBody } from '../../schemas/events.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      onRequest: [app.limiters.apiKey, app.authenticate({ apiKey: 'subscribe_only' })],
      schema: {
        tags: ['engagement'],
        summary: 'Report that a notification was shown or clicked (sent by the SDK service worker)',
        description:
          'Counted once per (notification, subscription, type), and a click on a button once per (notification, ' +
          'subscription, action) in `actionClicks`; only for a subscription the notification was pushed to. ' +
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
      const { notificationId, endpoint, type, action } = request.body;
      // An action only qualifies a click; with `shown` it is ignored.
      if (isUuid(notificationId)) {
        const subscriptionId = await findEngagementTarget(app.db, appId, notificationId, endpoint);
        if (subscriptionId !== null) {
          await app.engagement
            .record({ notificationId, subscriptionId, type, ...(type === 'clicked' && action ? { action } : {}) })
            .catch((error: unknown) => request.log.warn({ err: error }, 'engagement event not buffered'));
        }
      }
      return reply.code(202).send({});
    },
  );
}
