import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listOpenPlanRequests } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { errorResponses, MAX_PAGE_SIZE, sessionSecurity } from '#schemas/common.js';
import { OperatorPlanRequestListResponse } from '#schemas/operator.js';
import { operatorPlanRequest } from '../public-views.js';

/** GET /operator/plan-requests: the open plan requests of every account, oldest first (operators only). */
export default async function operatorPlanRequestRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      schema: {
        tags: ['operator'],
        summary: 'Open plan requests, oldest first (operators only)',
        description: `At most ${MAX_PAGE_SIZE}; granting one takes it off the list.`,
        security: sessionSecurity,
        response: {
          200: OperatorPlanRequestListResponse,
          ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION', 'FORBIDDEN'),
        },
      },
    },
    async () => ({ planRequests: (await listOpenPlanRequests(app.db, MAX_PAGE_SIZE)).map(operatorPlanRequest) }),
  );
}
