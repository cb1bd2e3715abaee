import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listWebhookAttempts } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { integerQuery } from '#plugins/app/validation.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { WebhookDeliveriesQuery, WebhookDeliveriesResponse } from '#schemas/webhooks.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      preValidation: integerQuery('limit'),
      schema: {
        tags: ['webhooks'],
        summary: 'Recent delivery attempts, newest first: status, duration, the first bytes of the answer',
        security: sessionSecurity,
        params: AppIdParams,
        querystring: WebhookDeliveriesQuery,
        response: { 200: WebhookDeliveriesResponse, ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const owned = request.ownedApp;
      const attempts = await listWebhookAttempts(app.db, owned.id, request.query.limit ?? 50);
      return {
        deliveries: attempts.map((attempt) => ({ ...attempt, createdAt: attempt.createdAt.toISOString() })),
      };
    },
  );
}
