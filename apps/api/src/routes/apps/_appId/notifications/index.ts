import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listNotifications } from '@webpush/db';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cursorPosition, integerQuery } from '#plugins/app/validation.js';
import {
  AppIdParams,
  sessionAuthErrors as authErrors,
  DEFAULT_PAGE_SIZE,
  errorResponses,
  sessionSecurity,
} from '#schemas/common.js';
import {
  IdempotencyHeaders,
  NotificationListQuery,
  NotificationListResponse,
  NotifyBody,
  NotifyResponse,
} from '#schemas/notifications.js';
import { countRefusedSends, notificationAcceptor, type Sender, sendErrors } from '#sending/accept.js';
import { publicNotification } from '#sending/public-notification.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const sending = notificationAcceptor(app);
  countRefusedSends(app);

  const sessionSender = (request: FastifyRequest): Sender => {
    // The app counts against its owner's plan and monthly sends, whoever of its people sends.
    const owned = request.ownedApp;
    return { appId: owned.id, userId: owned.userId, plan: request.appAccess.ownerPlan, pushFormat: owned.pushFormat };
  };

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
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
      const owned = request.ownedApp;
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
      config: { appRole: 'editor' },
      onRequest: [app.limiters.sessionSend],
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
          ...errorResponses(
            ...sendErrors,
            ...authErrors,
            'RATE_LIMITED',
            'FORBIDDEN',
            'NOT_FOUND',
            'SUBSCRIPTION_EXPIRED',
          ),
        },
      },
    },
    async (request, reply) => sending.sendNotify(request, reply, sessionSender(request), request.body),
  );
}
