import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { resetPasswordWithToken } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { MeResponse, PasswordResetConfirmBody } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { validPassword } from '../../password-rules.js';
import { publicUser } from '../../session-cookie.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with the token from the reset e-mail; ends every session of the user',
        body: PasswordResetConfirmBody,
        response: {
          200: MeResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'INVALID_TOKEN', 'RATE_LIMITED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request) => {
      const password = validPassword(request.body.password, { refuseCommon: app.config.passwordRefuseCommon });
      const tokenHash = app.secrets.hash(request.body.token);
      const user = await resetPasswordWithToken(app.db, tokenHash, await app.passwords.hash(password), request.ip);
      if (!user) throw new AppError('INVALID_TOKEN');
      request.log.info({ userId: user.id }, 'password reset; every session ended');
      return { user: publicUser(user) };
    },
  );
}
