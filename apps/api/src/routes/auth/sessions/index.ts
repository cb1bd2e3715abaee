import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteOtherSessions, listLiveSessions } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { SessionListResponse } from '#schemas/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { currentSessionId } from '../session-cookie.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Your live sessions, most recently used first',
        security: sessionSecurity,
        response: { 200: SessionListResponse, ...errorResponses(...authErrors) },
      },
    },
    async (request) => {
      const current = currentSessionId(request);
      const sessions = await listLiveSessions(app.db, sessionUser(request).id);
      return {
        sessions: sessions.map((session) => ({
          id: session.id,
          createdAt: session.createdAt.toISOString(),
          lastUsedAt: session.lastUsedAt.toISOString(),
          userAgent: session.userAgent,
          current: session.id === current,
        })),
      };
    },
  );

  app.delete(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'End every session but the current one',
        security: sessionSecurity,
        response: { 204: { type: 'null', description: 'The other sessions ended' }, ...errorResponses(...authErrors) },
      },
    },
    async (request, reply) => {
      const ended = await deleteOtherSessions(app.db, sessionUser(request).id, currentSessionId(request));
      request.log.info({ userId: sessionUser(request).id, ended }, 'other sessions ended');
      return reply.code(204).send(null);
    },
  );
}
