import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isUuid, resendWebhookAttempt } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { queueWebhookMessage } from '@webpush/queue';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { ResendResponse, WebhookDeliveryParams } from '#schemas/webhooks.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary:
          'Send again: the event of this attempt goes out now, with the same webhook-id and a fresh set of retries',
        security: sessionSecurity,
        params: WebhookDeliveryParams,
        response: { 202: ResendResponse, ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const owned = request.ownedApp;
      // Each one sends a request to the customer's receiver: bounded per app (fails open with Redis).
      const { windowSeconds, webhookResendMax } = app.config.rateLimit;
      const budget = await app.withinBudget(`webhook-resend:${owned.id}`, webhookResendMax, windowSeconds * 1000);
      if (budget === false) throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(windowSeconds) } });
      const { deliveryId } = request.params;
      const messageId = isUuid(deliveryId) ? await resendWebhookAttempt(app.db, owned.id, deliveryId) : null;
      if (messageId === null) throw new AppError('NOT_FOUND');
      // Should Redis be down, the event is pending in PostgreSQL: the worker's relay queues it later.
      await queueWebhookMessage(app.queues.webhooks, messageId, app.config.webhooks, { replaceWaiting: true }).catch(
        (error: unknown) => request.log.warn({ err: error, messageId }, 'send again not queued; the relay will'),
      );
      request.log.info({ userId: user.id, appId: owned.id, messageId }, 'webhook event sent again');
      return reply.code(202).send({ delivery: { messageId, status: 'pending' as const } });
    },
  );
}
