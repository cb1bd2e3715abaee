import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pendingWebhookMessageIds, resumeWebhook } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { queueWebhookMessage } from '@webpush/queue';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { WebhookResponse } from '#schemas/webhooks.js';
import { publicWebhook } from '../public-webhook.js';

/** Held events put back on the queue by the resume itself, so they go out now; the relay takes the rest. */
const REQUEUE_AT_ONCE = 100;

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Resume deliveries of a paused or disabled webhook; its held events go out again',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: WebhookResponse, ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = request.ownedApp;
      const webhook = await resumeWebhook(app.db, owned.id);
      if (!webhook) throw new AppError('NOT_FOUND');
      // Events a pause had deferred would wait for their turn: they go now, with a fresh set of retries.
      // Should Redis be down, they are pending in PostgreSQL: the worker's relay queues them later.
      try {
        for (const messageId of await pendingWebhookMessageIds(app.db, owned.id, REQUEUE_AT_ONCE)) {
          await queueWebhookMessage(app.queues.webhooks, messageId, app.config.webhooks, { replaceWaiting: true });
        }
      } catch (error) {
        request.log.warn({ err: error, appId: owned.id }, 'held webhook events not queued; the relay will');
      }
      request.log.info({ userId: user.id, appId: owned.id }, 'webhook deliveries resumed');
      return { webhook: publicWebhook(webhook) };
    },
  );
}
