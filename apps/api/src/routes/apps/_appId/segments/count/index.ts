import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { countSegment } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { CountSegmentBody, checkSegment, SegmentCountResponse } from '#schemas/segments.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['segments'],
        summary: 'How many active subscriptions a segment matches now: what a send to it would target',
        security: sessionSecurity,
        params: AppIdParams,
        body: CountSegmentBody,
        response: {
          200: SegmentCountResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'NOT_FOUND'),
        },
      },
    },
    async (request) => ({
      count: await countSegment(app.db, request.ownedApp.id, checkSegment(request.body.segment)),
    }),
  );
}
