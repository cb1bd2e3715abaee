import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { NotificationIdParams, NotificationResponse } from '#schemas/notifications.js';
import { cancelNotification } from '#sending/public-notification.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
    {
      config: { appRole: 'editor' },
      schema: {
        tags: ['notifications'],
        summary: 'Cancel a scheduled send from the dashboard: exactly DELETE /notifications/{id} for this app',
        security: sessionSecurity,
        params: Type.Object({ ...AppIdParams.properties, ...NotificationIdParams.properties }),
        response: {
          200: NotificationResponse,
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND', 'NOT_CANCELABLE'),
        },
      },
    },
    async (request) => {
      const owned = request.ownedApp;
      return { notification: await cancelNotification(app.db, owned.id, request.params.id) };
    },
  );
}
