import { deleteAccount, setUserLanguage } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { sessionUser } from '#plugins/app/auth.js';
import { DeleteAccountBody, MeResponse, UpdateMeBody } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import type { Language } from '#src/languages.js';
import { clearSessionCookie, publicUser } from '../session-cookie.js';

export default async function routes(app: FastifyInstance) {
  app.get(
    '/',
    {
      onRequest: [app.authenticate({ session: true })],
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user',
        security: [{ session: [] }, { sessionCookie: [] }],
        response: { 200: MeResponse, ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION') },
      },
    },
    async (request) => ({ user: publicUser(sessionUser(request)) }),
  );

  app.patch(
    '/',
    {
      onRequest: [app.authenticate({ session: true })],
      schema: {
        tags: ['auth'],
        summary: 'Change the signed-in user’s language (of the dashboard and the e-mails)',
        security: [{ session: [] }, { sessionCookie: [] }],
        body: UpdateMeBody,
        response: {
          200: MeResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', 'UNAUTHORIZED', 'INVALID_SESSION'),
        },
      },
    },
    async (request) => {
      const { language } = request.body as { language: Language };
      const user = await setUserLanguage(app.db, sessionUser(request).id, language);
      if (!user) throw new AppError('INVALID_SESSION');
      return { user: publicUser(user) };
    },
  );

  app.delete(
    '/',
    {
      // Guessing the password from a stolen session is a login attempt: the same limits.
      onRequest: [app.limiters.login, app.authenticate({ session: true })],
      // An account without a password may send no body at all.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['auth'],
        summary:
          'Delete the account: its apps with everything in them, its sessions, tokens and memberships, in one transaction',
        security: [{ session: [] }, { sessionCookie: [] }],
        body: DeleteAccountBody,
        response: {
          204: { type: 'null', description: 'The account and everything it owned are deleted' },
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_INPUT',
            'UNAUTHORIZED',
            'INVALID_SESSION',
            'INVALID_CREDENTIALS',
            'TOTP_REQUIRED',
            'RATE_LIMITED',
          ),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { password, totp, recoveryCode } = request.body as Static<typeof DeleteAccountBody>;
      await app.loginFailures.guard(user.email);
      // An account made with GitHub that never set a password proves itself by its session alone.
      if (user.passwordHash !== null) {
        if (password === undefined || password === '') throw new AppError('MISSING_FIELDS');
        if (!(await app.passwords.verify(user.passwordHash, password))) {
          await app.loginFailures.failed(user.email);
          throw new AppError('INVALID_CREDENTIALS');
        }
      }
      await app.twoFactor.verifySignIn(user, { totp, recoveryCode });
      const deleted = await deleteAccount(app.db, user.id, request.ip);
      if (!deleted) throw new AppError('INVALID_SESSION');
      // Its keys fail on every API instance at once, not when a cached principal expires.
      await app.apiKeyPrincipals.changed({ userId: user.id });
      clearSessionCookie(app, reply);
      request.log.info({ userId: user.id, apps: deleted.appIds.length }, 'account deleted');
      return reply.code(204).send(null);
    },
  );
}
