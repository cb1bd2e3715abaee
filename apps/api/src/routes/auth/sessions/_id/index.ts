import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteUserSession, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { SessionIdParams } from '#schemas/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { clearSessionCookie, currentSessionId } from '../../session-cookie.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
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
}
