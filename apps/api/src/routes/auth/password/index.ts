import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { changePasswordKeepingSession } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { ChangePasswordBody, ChangePasswordResponse } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { validPassword } from '../password-rules.js';
import { publicUser } from '../session-cookie.js';

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      // Guessing the current password from a stolen session is a login attempt: the same limit.
      onRequest: [app.limiters.login, app.authenticate({ session: true })],
      schema: {
        tags: ['auth'],
        summary: 'Change the password: needs the current one; keeps this session and ends the others',
        security: [{ session: [] }, { sessionCookie: [] }],
        body: ChangePasswordBody,
        response: {
          200: ChangePasswordResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_INPUT',
            'UNAUTHORIZED',
            'INVALID_SESSION',
            'INVALID_CREDENTIALS',
            'RATE_LIMITED',
          ),
        },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (principal?.kind !== 'session') throw new AppError('INVALID_SESSION');
      const user = principal.user;
      // An account made with GitHub has no password to give: it sets one through "forgot password".
      if (!(await app.passwords.verify(user.passwordHash, request.body.currentPassword))) {
        throw new AppError('INVALID_CREDENTIALS');
      }
      const password = validPassword(request.body.newPassword, { refuseCommon: app.config.passwordRefuseCommon });
      const changed = await changePasswordKeepingSession(
        app.db,
        user.id,
        await app.passwords.hash(password),
        principal.sessionId,
        request.ip,
      );
      if (!changed) throw new AppError('INVALID_SESSION');
      request.log.info(
        { userId: user.id, endedSessions: changed.endedSessions },
        'password changed; other sessions ended',
      );
      return { user: publicUser(changed.user), endedSessions: changed.endedSessions };
    },
  );
}
