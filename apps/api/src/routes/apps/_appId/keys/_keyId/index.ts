import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { deleteApiKey } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { KeyParams } from '#schemas/keys.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['api keys'],
        summary: 'Revoke an API key; it answers INVALID_API_KEY from then on',
        security: sessionSecurity,
        params: KeyParams,
        response: {
          204: { type: 'null', description: 'Revoked' },
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { appId, keyId } = request.params;
      const deleted = await deleteApiKey(app.db, request.ownedApp.userId, appId, keyId, auditContext(request));
      if (!deleted) throw new AppError('NOT_FOUND');
      await app.apiKeyPrincipals.changed({ appId });
      request.log.info({ userId: user.id, appId, keyId }, 'api key revoked');
      return reply.code(204).send(null);
    },
  );
}
