import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { enableTotp, findUserById } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { RecoveryCodesResponse, TotpCodeBody } from '#schemas/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';

/** POST /auth/totp/enable: a code of the secret set up turns two-factor sign-in on. */
export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Turn two-factor sign-in on with a code of the secret from setup; answers the recovery codes once',
        security: sessionSecurity,
        body: TotpCodeBody,
        response: {
          200: RecoveryCodesResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'INVALID_TOKEN', ...authErrors, 'CONFIG_ERROR'),
        },
      },
    },
    async (request) => {
      // The row as it is now: the session's copy was read before a setup in another tab.
      const user = await findUserById(app.db, sessionUser(request).id);
      if (!user) throw new AppError('INVALID_SESSION');
      if (user.totpEnabledAt !== null) throw new AppError('INVALID_INPUT', { detail: 'TOTP_ALREADY_ENABLED' });
      const sealed = user.totpSecretSealed;
      if (sealed === null || app.twoFactor.matchingStep(user, sealed, request.body.code) === null) {
        throw new AppError('INVALID_TOKEN');
      }
      const { codes, hashes } = app.twoFactor.newRecoveryCodes();
      const enabled = await enableTotp(app.db, user.id, sealed, hashes, auditContext(request));
      // Set up again, or turned on, by another request meanwhile: this code was for another secret.
      if (!enabled) throw new AppError('INVALID_TOKEN');
      request.log.info({ userId: user.id }, 'two-factor sign-in turned on');
      return { recoveryCodes: codes };
    },
  );
}
