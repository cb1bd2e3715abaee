import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteSubscription, upsertSubscription } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiKeyPrincipal } from '../../plugins/app/auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  flattenKeys,
  SubscribeBody,
  SubscribeResponse,
  UnsubscribeBody,
  VapidKeyResponse,
} from '../../schemas/subscriptions.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'RATE_LIMITED'] as const;

/** Lifts `keys.p256dh` / `keys.auth` of the toJSON() shape to the flat shape before validation. */
async function flattenSubscriptionKeys(request: FastifyRequest) {
  flattenKeys(request.body);
}

/** Browser-facing routes, authenticated by an API key of any scope; the app is the key's app. */
export default async function subscriptionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const keyAuth = [app.limiters.apiKey, app.authenticate({ apiKey: 'subscribe_only' })];

  app.post(
    '/subscribe',
    {
      onRequest: keyAuth,
      preValidation: flattenSubscriptionKeys,
      schema: {
        tags: ['subscriptions'],
        summary: 'Store a browser push subscription (201 new, 200 already stored)',
        security: keySecurity,
        body: SubscribeBody,
        response: {
          200: SubscribeResponse,
          201: SubscribeResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            ...authErrors,
            'SUBSCRIBER_LIMIT_EXCEEDED',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = apiKeyPrincipal(request);
      const { endpoint, p256dh, auth } = request.body;
      const result = await upsertSubscription(
        app.db,
        principal.userId,
        principal.appId,
        { endpoint, p256dh, auth },
        limitsFor(principal.plan).activeSubscribers,
      );
      if (result === 'limit') throw new AppError('SUBSCRIBER_LIMIT_EXCEEDED');
      return reply.code(result.created ? 201 : 200).send({ subscriber: { id: result.id } });
    },
  );

  app.delete(
    '/subscribe',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['subscriptions'],
        summary: 'Remove a browser push subscription',
        security: keySecurity,
        body: UnsubscribeBody,
        response: {
          204: { type: 'null', description: 'Removed' },
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            ...authErrors,
            'NOT_FOUND',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = apiKeyPrincipal(request);
      if (!(await deleteSubscription(app.db, principal.appId, request.body.endpoint))) throw new AppError('NOT_FOUND');
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/vapid-public-key',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['subscriptions'],
        summary: "The VAPID public key of the API key's app",
        security: keySecurity,
        response: { 200: VapidKeyResponse, ...errorResponses(...authErrors) },
      },
    },
    async (request) => ({ vapidPublicKey: apiKeyPrincipal(request).vapidPublicKey }),
  );
}
