import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findNotification } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { apiKeyPrincipal } from '#plugins/app/auth.js';
import { errorResponses } from '#schemas/common.js';
import { NotificationIdParams, NotificationResponse } from '#schemas/notifications.js';
import { cancelNotification, publicNotification } from '#sending/public-notification.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'INSUFFICIENT_SCOPE', 'RATE_LIMITED'] as const;

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const keyAuth = [app.limiters.apiKey, app.authenticate({ apiKey: 'notify' })];

  app.get(
    '/',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['sending'],
        summary: 'Progress of a notification of the API key’s app',
        security: keySecurity,
        params: NotificationIdParams,
        response: { 200: NotificationResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const { id } = request.params;
      const found = await findNotification(app.db, apiKeyPrincipal(request).appId, id);
      if (!found) throw new AppError('NOT_FOUND');
      return { notification: publicNotification(found) };
    },
  );

  app.delete(
    '/',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['sending'],
        summary: 'Cancel a scheduled send of the API key’s app',
        description: 'Only a notification still `scheduled` can be canceled; any other is 409 NOT_CANCELABLE.',
        security: keySecurity,
        params: NotificationIdParams,
        response: { 200: NotificationResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'NOT_CANCELABLE') },
      },
    },
    async (request) => ({
      notification: await cancelNotification(app.db, apiKeyPrincipal(request).appId, request.params.id),
    }),
  );
}
