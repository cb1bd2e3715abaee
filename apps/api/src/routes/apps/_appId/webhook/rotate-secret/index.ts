import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { setWebhookSecret } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { webhookSecretContext } from '@webpush/secrets';
import { generateWebhookSecret } from '@webpush/webhooks';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { RotatedSecretResponse } from '#schemas/webhooks.js';
import { publicWebhook } from '../public-webhook.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['webhooks'],
        summary: 'Replace the signing secret; the new one is shown only in this answer',
        security: sessionSecurity,
        params: AppIdParams,
        response: {
          200: RotatedSecretResponse,
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND', 'CONFIG_ERROR'),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const owned = request.ownedApp;
      const secret = generateWebhookSecret();
      const webhook = await setWebhookSecret(
        app.db,
        owned.id,
        app.secrets.seal(secret, webhookSecretContext(owned.id)),
        auditContext(request),
      );
      if (!webhook) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId: owned.id }, 'webhook secret rotated');
      return { webhook: { ...publicWebhook(webhook), secret } };
    },
  );
}
