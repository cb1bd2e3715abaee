import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { resetPasswordWithToken } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { MeResponse, PasswordResetBody, PasswordResetConfirmBody } from '../../schemas/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { sendPasswordResetEmail } from './account-mail.js';
import { normaliseEmail, validPassword } from './index.js';
import { publicUser } from './session-cookie.js';

/** The link of the reset e-mail (`${PUBLIC_URL}/reset-password?token=…`) lands on a page that calls these. */
export default async function passwordResetRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/password-reset',
    {
      onRequest: [app.limiters.mail],
      schema: {
        tags: ['auth'],
        summary: 'Ask for a password-reset e-mail; 202 whether or not the address has an account',
        body: PasswordResetBody,
        response: {
          202: Type.Object({}, { description: 'Accepted: a known address gets a link valid for one hour' }),
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'RATE_LIMITED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      app.secrets.hash(''); // CONFIG_ERROR now, for known and unknown addresses alike, not a silent failure later
      sendPasswordResetEmail(app, normaliseEmail(request.body.email));
      return reply.code(202).send({});
    },
  );

  app.post(
    '/password-reset/confirm',
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
      const user = await resetPasswordWithToken(app.db, tokenHash, await app.passwords.hash(password));
      if (!user) throw new AppError('INVALID_TOKEN');
      request.log.info({ userId: user.id }, 'password reset; every session ended');
      return { user: publicUser(user) };
    },
  );
}
