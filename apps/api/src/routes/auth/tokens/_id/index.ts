import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deletePersonalAccessToken } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { AccessTokenParams } from '#schemas/tokens.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke a personal access token: every API instance refuses it from the next request on',
        security: sessionSecurity,
        params: AccessTokenParams,
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const revoked = await deletePersonalAccessToken(app.db, user.id, request.params.id, auditContext(request));
      if (!revoked) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, tokenId: request.params.id }, 'personal access token revoked');
      return reply.code(204).send(null);
    },
  );
}
