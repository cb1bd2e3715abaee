import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteSegment, isUuid, updateSegment } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { checkSegment, SegmentParams, SegmentResponse, UpdateSegmentBody } from '#schemas/segments.js';
import { publicSegment } from '../index.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.patch(
    '/',
    {
      config: { appRole: 'editor' },
      schema: {
        tags: ['segments'],
        summary: 'Rename a saved segment or change its conditions; sends already accepted to it keep their audience',
        security: sessionSecurity,
        params: SegmentParams,
        body: UpdateSegmentBody,
        response: {
          200: SegmentResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const { segmentId } = request.params;
      const appId = request.ownedApp.id;
      const { name, segment } = request.body;
      if (name === undefined && segment === undefined) throw new AppError('MISSING_FIELDS');
      const change = {
        ...(name === undefined ? {} : { name }),
        ...(segment === undefined ? {} : { segment: checkSegment(segment) }),
      };
      const saved = isUuid(segmentId)
        ? await updateSegment(app.db, appId, segmentId, change, auditContext(request))
        : null;
      if (!saved) throw new AppError('NOT_FOUND');
      request.log.info({ appId, segmentId, fields: Object.keys(change) }, 'segment updated');
      return { segment: publicSegment(saved) };
    },
  );

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
      const deleted = isUuid(segmentId) && (await deleteSegment(app.db, appId, segmentId, auditContext(request)));
      if (!deleted) throw new AppError('NOT_FOUND');
      request.log.info({ appId, segmentId }, 'segment deleted');
      return reply.code(204).send(null);
    },
  );
}
