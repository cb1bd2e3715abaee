import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { dailyAppSends, monthlySends } from '@webpush/db';
import { limitsFor } from '@webpush/plans';
import type { FastifyInstance } from 'fastify';
import { integerQuery } from '#plugins/app/validation.js';
import { AppIdParams, errorResponses, sessionSecurity } from '#schemas/common.js';
import { DEFAULT_USAGE_DAYS, UsageQuery, UsageResponse } from '#schemas/usage.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      preValidation: integerQuery('days'),
      schema: {
        tags: ['apps'],
        summary: "This month's sends against the plan's limit, and the app's sends per UTC day",
        security: sessionSecurity,
        params: AppIdParams,
        querystring: UsageQuery,
        response: {
          200: UsageResponse,
          ...errorResponses('INVALID_INPUT', 'UNAUTHORIZED', 'INVALID_SESSION', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const owned = request.ownedApp;
      const [sends, days] = await Promise.all([
        monthlySends(app.db, owned.userId),
        dailyAppSends(app.db, owned.id, request.query.days ?? DEFAULT_USAGE_DAYS),
      ]);
      return { month: { sends, limit: limitsFor(request.appAccess.ownerPlan).sendsPerMonth }, days };
    },
  );
}
