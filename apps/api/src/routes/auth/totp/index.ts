import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { disableTotp, findUserById, redeemRecoveryCode } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { TotpCodeBody } from '#schemas/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';

/** DELETE /auth/totp: turns two-factor sign-in off, with a current code (or a recovery code). */
export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.delete(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Turn two-factor sign-in off: needs a current code (or an unused recovery code)',
        security: sessionSecurity,
        body: TotpCodeBody,
        response: {
          204: { type: 'null', description: 'Two-factor sign-in is off; the secret and recovery codes are deleted' },
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'INVALID_TOKEN', ...authErrors, 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const user = await findUserById(app.db, sessionUser(request).id);
      if (!user) throw new AppError('INVALID_SESSION');
      if (user.totpEnabledAt === null || user.totpSecretSealed === null) {
        throw new AppError('INVALID_INPUT', { detail: 'TOTP_NOT_ENABLED' });
      }
      const { code } = request.body;
      const matches =
        app.twoFactor.matchingStep(user, user.totpSecretSealed, code) !== null ||
        (await redeemRecoveryCode(app.db, user.id, app.twoFactor.recoveryCodeHash(code)));
      if (!matches) throw new AppError('INVALID_TOKEN');
      await disableTotp(app.db, user.id, auditContext(request));
      request.log.info({ userId: user.id }, 'two-factor sign-in turned off');
      return reply.code(204).send(null);
    },
  );
}
