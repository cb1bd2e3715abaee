import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { setPendingTotpSecret } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { TotpSetupResponse } from '#schemas/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';

/** POST /auth/totp/setup: a new secret to scan; two-factor sign-in is on only once a code confirms it. */
export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Start turning two-factor sign-in on: a new TOTP secret and its otpauth:// URL',
        security: sessionSecurity,
        response: {
          200: TotpSetupResponse,
          ...errorResponses('INVALID_INPUT', ...authErrors, 'CONFIG_ERROR'),
        },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const { secret, otpauthUrl, sealed } = app.twoFactor.newSecret(user);
      if (!(await setPendingTotpSecret(app.db, user.id, sealed))) {
        throw new AppError('INVALID_INPUT', { detail: 'TOTP_ALREADY_ENABLED' });
      }
      return { secret, otpauthUrl };
    },
  );
}
