import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { findNotification } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { NotificationIdParams, NotificationResponse } from '#schemas/notifications.js';
import { cancelNotification, publicNotification } from '#sending/public-notification.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  const params = Type.Object({ ...AppIdParams.properties, ...NotificationIdParams.properties });

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['notifications'],
        summary: 'One notification of the app, for the dashboard: exactly GET /notifications/{id} for this app',
        security: sessionSecurity,
        params,
        response: { 200: NotificationResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const found = await findNotification(app.db, request.ownedApp.id, request.params.id);
      if (!found) throw new AppError('NOT_FOUND');
      return { notification: publicNotification(found) };
    },
  );

  app.delete(
    '/',
    {
      config: { appRole: 'editor' },
      schema: {
        tags: ['notifications'],
        summary: 'Cancel a scheduled send from the dashboard: exactly DELETE /notifications/{id} for this app',
        security: sessionSecurity,
        params,
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
