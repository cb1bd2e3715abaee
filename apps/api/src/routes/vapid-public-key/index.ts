import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { apiKeyPrincipal } from '#plugins/app/auth.js';
import { errorResponses } from '#schemas/common.js';
import { VapidKeyResponse } from '#schemas/subscriptions.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'ORIGIN_NOT_ALLOWED', 'RATE_LIMITED'] as const;

/** GET /vapid-public-key: the key browsers subscribe with (applicationServerKey). */
export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const keyAuth = [app.limiters.apiKey, app.authenticate({ apiKey: 'subscribe_only' })];

  app.get(
    '/',
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
