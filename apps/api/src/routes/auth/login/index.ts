import { findUserByEmail } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
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
        summary: 'Sign in with e-mail and password',
        body: CredentialsBody,
        response: {
          200: SessionResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'INVALID_CREDENTIALS', 'RATE_LIMITED', 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const { email, password } = request.body as { email: string; password: string };
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
      const token = await startSession(app, request, reply, user, 'password');
      return { user: publicUser(user), token };
    },
  );
}
