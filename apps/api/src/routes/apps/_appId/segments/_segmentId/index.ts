import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteSegment, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { SegmentParams } from '#schemas/segments.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
    {
      config: { appRole: 'editor' },
      schema: {
        tags: ['segments'],
        summary: 'Delete a saved segment; sends already accepted to it keep their audience',
        security: sessionSecurity,
        params: SegmentParams,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const { segmentId } = request.params;
      const appId = request.ownedApp.id;
      if (!isUuid(segmentId) || !(await deleteSegment(app.db, appId, segmentId))) throw new AppError('NOT_FOUND');
      request.log.info({ appId, segmentId }, 'segment deleted');
      return reply.code(204).send(null);
    },
  );
}
