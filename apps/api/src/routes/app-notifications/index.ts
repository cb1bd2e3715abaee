import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listNotifications } from '@webpush/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { sessionUser } from '../../plugins/app/auth.js';
import { cursorPosition, integerQuery } from '../../plugins/app/validation.js';
import { AppIdParams, DEFAULT_PAGE_SIZE, errorResponses } from '../../schemas/common.js';
import {
  IdempotencyHeaders,
  NotificationIdParams,
  NotificationListQuery,
  NotificationListResponse,
  NotificationResponse,
  NotifyBody,
  NotifyResponse,
} from '../../schemas/notifications.js';
import { ownedApp } from '../apps/owned-app.js';
import { countRefusedSends, notificationAcceptor, type Sender, sendErrors } from '../notifications/accept.js';
import { cancelNotification, publicNotification } from '../notifications/public-notification.js';

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

/** The notifications of one app, for its owner's session (the dashboard): history and sending. */
export default async function appNotificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const authenticate = app.authenticate({ session: true });
  const sending = notificationAcceptor(app);
  countRefusedSends(app);

  /** The session user's app, its owner and the owner's plan. */
  const sessionSender = async (request: FastifyRequest, appId: string): Promise<Sender> => {
    const user = sessionUser(request);
    const owned = await ownedApp(app.db, user.id, appId);
    return { appId: owned.id, userId: user.id, plan: user.plan, pushFormat: owned.pushFormat };
  };

  app.get(
    '/',
    {
      onRequest: [authenticate],
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['notifications'],
        summary: "The app's notifications, newest first, a page at a time (keyset pagination)",
        security: sessionSecurity,
        params: AppIdParams,
        querystring: NotificationListQuery,
        response: {
          200: NotificationListResponse,
          ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      const after = cursorPosition(request.query.cursor);
      const page = await listNotifications(app.db, owned.id, {
        limit: request.query.limit ?? DEFAULT_PAGE_SIZE,
        after,
      });
      return { notifications: page.items.map(publicNotification), nextCursor: page.nextCursor };
    },
  );

  app.post(
    '/',
    {
      onRequest: [authenticate, app.limiters.sessionSend],
      schema: {
        tags: ['notifications'],
        summary: 'Send from the dashboard: exactly POST /notify for this app',
        description:
          'Same body, checks, targeting, monthly limit, usage and `Idempotency-Key` (shared with the app’s API-key sends) as POST /notify.',
        security: sessionSecurity,
        params: AppIdParams,
        headers: IdempotencyHeaders,
        body: NotifyBody,
        response: {
          202: NotifyResponse,
          ...errorResponses(...sendErrors, ...authErrors, 'RATE_LIMITED', 'NOT_FOUND', 'SUBSCRIPTION_EXPIRED'),
        },
      },
    },
    async (request, reply) =>
      sending.sendNotify(request, reply, await sessionSender(request, request.params.appId), request.body),
  );
  app.delete(
    '/:id',
    {
      onRequest: [authenticate],
      schema: {
        tags: ['notifications'],
        summary: 'Cancel a scheduled send from the dashboard: exactly DELETE /notifications/{id} for this app',
        security: sessionSecurity,
        params: Type.Object({ ...AppIdParams.properties, ...NotificationIdParams.properties }),
        response: { 200: NotificationResponse, ...errorResponses(...authErrors, 'NOT_FOUND', 'NOT_CANCELABLE') },
      },
    },
    async (request) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      return { notification: await cancelNotification(app.db, owned.id, request.params.id) };
    },
  );
}
