import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { appDayStats } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { integerQuery } from '#plugins/app/validation.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { DEFAULT_STATS_DAYS, StatsQuery, StatsResponse } from '#schemas/stats.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      preValidation: integerQuery('days'),
      schema: {
        tags: ['apps'],
        summary: "The app's delivery, engagement and subscribers per UTC day",
        security: sessionSecurity,
        params: AppIdParams,
        querystring: StatsQuery,
        response: { 200: StatsResponse, ...errorResponses('INVALID_INPUT', ...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => ({
      days: await appDayStats(app.db, request.ownedApp.id, request.query.days ?? DEFAULT_STATS_DAYS),
    }),
  );
}
