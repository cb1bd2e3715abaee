import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteSubscriptionById, isUuid, listSubscriptions, type SubscriptionSummary } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '../../plugins/app/auth.js';
import { cursorPosition, integerQuery } from '../../plugins/app/validation.js';
import { AppIdParams, DEFAULT_PAGE_SIZE, errorResponses } from '../../schemas/common.js';
import { SubscriberListQuery, SubscriberListResponse, SubscriberParams } from '../../schemas/subscribers.js';
import { ownedApp } from '../apps/owned-app.js';

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

const publicSubscriber = (subscription: SubscriptionSummary) => ({
  id: subscription.id,
  endpoint: subscription.endpoint,
  status: subscription.status,
  uid: subscription.uid,
  tags: subscription.tags,
  vapidPublicKey: subscription.vapidPublicKey,
  createdAt: subscription.createdAt.toISOString(),
});

/** `key:value` of the `tag` filter (the schema checked the key); the value is everything after the first colon. */
const tagFilter = (tag: string) => {
  const colon = tag.indexOf(':');
  return { [tag.slice(0, colon)]: tag.slice(colon + 1) };
};

/** An app's subscribers for its owner's session: mounted at /apps/:appId/subscribers. */
export default async function subscriberRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));

  app.get(
    '/',
    {
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['subscribers'],
        summary: "The app's subscribers, newest first, a page at a time (keyset pagination); filter by uid or tag",
        security: sessionSecurity,
        params: AppIdParams,
        querystring: SubscriberListQuery,
        response: { 200: SubscriberListResponse, ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const owned = await ownedApp(app.db, sessionUser(request).id, request.params.appId);
      const { status, limit, cursor, uid, tag } = request.query;
      const page = await listSubscriptions(app.db, owned.id, {
        limit: limit ?? DEFAULT_PAGE_SIZE,
        after: cursorPosition(cursor),
        status: status ?? null,
        uid: uid ?? null,
        tags: tag === undefined ? null : tagFilter(tag),
      });
      return { subscribers: page.items.map(publicSubscriber), nextCursor: page.nextCursor };
    },
  );

  app.delete(
    '/:subscriberId',
    {
      schema: {
        tags: ['subscribers'],
        summary: 'Delete a subscriber: it is no longer a target of any send',
        security: sessionSecurity,
        params: SubscriberParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { appId, subscriberId } = request.params;
      const owned = await ownedApp(app.db, user.id, appId);
      const deleted = isUuid(subscriberId) && (await deleteSubscriptionById(app.db, owned.id, subscriberId));
      if (!deleted) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId, subscriberId }, 'subscriber deleted');
      return reply.code(204).send(null);
    },
  );
}
