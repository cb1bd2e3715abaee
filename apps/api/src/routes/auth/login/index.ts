import { findUserByEmail } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { CredentialsBody, SessionResponse } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { normaliseEmail } from '../email.js';
import { publicUser, startSession } from '../session-cookie.js';

export default async function routes(app: FastifyInstance) {
  app.post(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password (and the two-factor code when it is on)',
        body: CredentialsBody,
        response: {
          200: SessionResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_INPUT',
            'INVALID_CREDENTIALS',
            'TOTP_REQUIRED',
            'RATE_LIMITED',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request, reply) => {
      const { email, password, totp, recoveryCode } = request.body as Static<typeof CredentialsBody>;
      app.secrets.hash(''); // CONFIG_ERROR without the pepper, not INVALID_CREDENTIALS for a login that could never succeed
      const address = normaliseEmail(email);
      // Per account as well as per IP: a slow spray from many addresses meets this limit.
      await app.loginFailures.guard(address);
      const user = await findUserByEmail(app.db, address);
      // Same answer, and about the same time, for an unknown e-mail and a wrong password.
      const ok = await app.passwords.verify(user?.passwordHash ?? null, password);
      if (!user || !ok) {
        await app.loginFailures.failed(address);
        throw new AppError('INVALID_CREDENTIALS');
      }
      // Only after the password: TOTP_REQUIRED tells the caller nothing a wrong password would not.
      await app.twoFactor.verifySignIn(user, { totp, recoveryCode });
      const token = await startSession(app, request, reply, user, 'password');
      return { user: publicUser(user), token };
    },
  );
}
