import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { resumeWebhook } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '../../../../../plugins/app/auth.js';
import {
  AppIdParams,
  sessionAuthErrors as authErrors,
  errorResponses,
  sessionSecurity,
} from '../../../../../schemas/common.js';
import { WebhookResponse } from '../../../../../schemas/webhooks.js';
import { publicWebhook } from '../public-webhook.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Resume deliveries of a paused or disabled webhook; its held events go out again',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: WebhookResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = request.ownedApp;
      const webhook = await resumeWebhook(app.db, owned.id);
      if (!webhook) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: owned.id }, 'webhook deliveries resumed');
      return { webhook: publicWebhook(webhook) };
    },
  );
}
