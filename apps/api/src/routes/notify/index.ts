import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '#schemas/common.js';
import { IdempotencyHeaders, NotifyBody, NotifyResponse } from '#schemas/notifications.js';
import { keySender, notificationAcceptor, sendErrors } from '#sending/accept.js';

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'INSUFFICIENT_SCOPE', 'RATE_LIMITED'] as const;

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const sending = notificationAcceptor(app);

  app.post(
    '/',
    {
      schema: {
        tags: ['sending'],
        summary: 'Send to every active subscriber of the app, or to one endpoint',
        security: keySecurity,
        headers: IdempotencyHeaders,
        body: NotifyBody,
        response: {
          202: NotifyResponse,
          ...errorResponses(...sendErrors, ...authErrors, 'NOT_FOUND', 'SUBSCRIPTION_EXPIRED'),
        },
      },
    },
    async (request, reply) => sending.sendNotify(request, reply, keySender(request), request.body),
  );
}
