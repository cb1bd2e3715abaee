import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { storeIdentitySecret } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { identitySecretContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { IdentitySecretResponse } from '#schemas/apps.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { generateIdentitySecret } from '#src/identity-secret.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['apps'],
        summary: 'Create or replace the identity secret your server signs uids with (uidSignature)',
        description:
          'Shown only in this answer and stored encrypted. Replacing it invalidates every signature made with the old one for new subscribes.',
        security: sessionSecurity,
        params: AppIdParams,
        response: {
          201: IdentitySecretResponse,
          ...errorResponses(...authErrors, 'FORBIDDEN', 'NOT_FOUND', 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const appId = request.ownedApp.id;
      const secret = generateIdentitySecret();
      const stored = await storeIdentitySecret(
        app.db,
        request.ownedApp.userId,
        appId,
        app.secrets.seal(secret, identitySecretContext(appId)),
        auditContext(request),
      );
      if (!stored) throw new AppError('NOT_FOUND');
      request.log.info({ userId: user.id, appId }, 'identity secret replaced');
      return reply.code(201).send({ secret });
    },
  );
}
