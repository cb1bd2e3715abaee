import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { countSegment, createSegment, listSegments, type SavedSegment } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { auditContext } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { CreateSegmentBody, checkSegment, SegmentListResponse, SegmentResponse } from '#schemas/segments.js';

export const publicSegment = (segment: SavedSegment) => ({
  id: segment.id,
  name: segment.name,
  segment: segment.segment,
  createdAt: segment.createdAt.toISOString(),
});

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'editor' },
      schema: {
        tags: ['segments'],
        summary: 'Save a segment of the app’s subscribers under a name, to send to by `segmentId`',
        security: sessionSecurity,
        params: AppIdParams,
        body: CreateSegmentBody,
        response: {
          201: SegmentResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const segment = checkSegment(request.body.segment);
      const saved = await createSegment(app.db, request.ownedApp.id, request.body.name, segment, auditContext(request));
      request.log.info({ appId: request.ownedApp.id, segmentId: saved.id }, 'segment saved');
      return reply.code(201).send({ segment: publicSegment(saved) });
    },
  );

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['segments'],
        summary: 'The app’s saved segments, oldest first, each with the number of active subscriptions it matches now',
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: SegmentListResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const appId = request.ownedApp.id;
      const saved = await listSegments(app.db, appId);
      // Counted one by one (each planned for its own conditions), on the pool's connections at once.
      const counts = await Promise.all(saved.map((segment) => countSegment(app.db, appId, segment.segment)));
      return { segments: saved.map((segment, i) => ({ ...publicSegment(segment), count: counts[i] ?? 0 })) };
    },
  );
}
