import { deleteSession } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '#schemas/common.js';
import { clearSessionCookie } from '../session-cookie.js';

export default async function routes(app: FastifyInstance) {
  app.post(
    '/',
    {
      onRequest: [app.authenticate({ session: true })],
      schema: {
        tags: ['auth'],
        summary: 'End the session',
        security: [{ session: [] }, { sessionCookie: [] }],
        response: {
          204: { type: 'null', description: 'Session ended' },
          ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION'),
        },
      },
    },
    async (request, reply) => {
      if (request.principal?.kind === 'session') await deleteSession(app.db, request.principal.tokenHash);
      clearSessionCookie(app, reply);
      return reply.code(204).send(null);
    },
  );
}
