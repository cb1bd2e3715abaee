import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteOtherSessions, deleteUserSession, isUuid, listLiveSessions } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sessionUser } from '../../plugins/app/auth.js';
import { SessionIdParams, SessionListResponse } from '../../schemas/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { clearSessionCookie } from './session-cookie.js';

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

function currentSessionId(request: FastifyRequest): string {
  if (request.principal?.kind !== 'session') throw new Error('route needs a session principal');
  return request.principal.sessionId;
}

/** The signed-in user's sessions: list them, end one, end all the others. */
export default async function sessionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));

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
    '/:id',
    {
      schema: {
        tags: ['auth'],
        summary: 'End one of your sessions (the current one too: that signs you out)',
        security: sessionSecurity,
        params: SessionIdParams,
        response: { 204: { type: 'null', description: 'Ended' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { id } = request.params;
      const ended = isUuid(id) && (await deleteUserSession(app.db, user.id, id));
      if (!ended) throw new AppError('NOT_FOUND');
      if (id === currentSessionId(request)) clearSessionCookie(app, reply);
      return reply.code(204).send(null);
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
