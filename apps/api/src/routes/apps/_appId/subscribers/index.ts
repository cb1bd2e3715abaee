import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { eraseSubscriber, listSubscriptions, type SubscriptionSummary } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { auditContext } from '#plugins/app/auth.js';
import { cursorPosition, integerQuery } from '#plugins/app/validation.js';
import {
  AppIdParams,
  sessionAuthErrors as authErrors,
  DEFAULT_PAGE_SIZE,
  errorResponses,
  sessionSecurity,
} from '#schemas/common.js';
import {
  EraseSubscriberQuery,
  EraseSubscriberResponse,
  SubscriberListQuery,
  SubscriberListResponse,
} from '#schemas/subscribers.js';
import { canonicalTimeZone } from '#src/time-zone.js';

const publicSubscriber = (subscription: SubscriptionSummary) => ({
  id: subscription.id,
  endpoint: subscription.endpoint,
  status: subscription.status,
  uid: subscription.uid,
  tags: subscription.tags,
  language: subscription.language,
  timeZone: subscription.timeZone,
  vapidPublicKey: subscription.vapidPublicKey,
  createdAt: subscription.createdAt.toISOString(),
});

/** `key:value` of the `tag` filter (the schema checked the key); the value is everything after the first colon. */
const tagFilter = (tag: string) => {
  const colon = tag.indexOf(':');
  return { [tag.slice(0, colon)]: tag.slice(colon + 1) };
};

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['subscribers'],
        summary:
          "The app's subscribers, newest first, a page at a time (keyset pagination); filter by uid, tag, language or time zone",
        security: sessionSecurity,
        params: AppIdParams,
        querystring: SubscriberListQuery,
        response: { 200: SubscriberListResponse, ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const owned = request.ownedApp;
      const { status, limit, cursor, uid, tag, language, timeZone } = request.query;
      const page = await listSubscriptions(app.db, owned.id, {
        limit: limit ?? DEFAULT_PAGE_SIZE,
        after: cursorPosition(cursor),
        status: status ?? null,
        uid: uid ?? null,
        tags: tag === undefined ? null : tagFilter(tag),
        language: language ?? null,
        timeZone: timeZone === undefined ? null : canonicalTimeZone(timeZone),
      });
      return { subscribers: page.items.map(publicSubscriber), nextCursor: page.nextCursor };
    },
  );

  app.delete(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['subscribers'],
        summary:
          'Erase a visitor (GDPR article 17): delete every subscription carrying the uid, with its engagement records',
        security: sessionSecurity,
        params: AppIdParams,
        querystring: EraseSubscriberQuery,
        response: {
          200: EraseSubscriberResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const owned = request.ownedApp;
      const deleted = await eraseSubscriber(app.db, owned.id, request.query.uid, auditContext(request));
      request.log.info({ appId: owned.id, deleted }, 'subscribers erased');
      return { deleted };
    },
  );
}
