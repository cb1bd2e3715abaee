import { createUser, deleteSession, findUserByEmail, setUserLanguage } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { type Language, requestLanguage } from '../../languages.js';
import { sessionUser } from '../../plugins/app/auth.js';
import {
  CredentialsBody,
  MeResponse,
  ProvidersResponse,
  RegisterBody,
  SessionResponse,
  UpdateMeBody,
} from '../../schemas/auth.js';
import { errorResponses } from '../../schemas/common.js';
import { sendVerificationEmail } from './account-mail.js';
import { validPassword } from './password-rules.js';
import { clearSessionCookie, publicUser, startSession } from './session-cookie.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL = 254;

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

function validEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw new AppError('INVALID_EMAIL');
  return email;
}

export { validPassword };

export default async function authRoutes(app: FastifyInstance) {
  app.post(
    '/register',
    {
      onRequest: [app.limiters.register],
      schema: {
        tags: ['auth'],
        summary: 'Register with e-mail and password; sends a verification e-mail',
        description:
          'The account’s language (its e-mails, starting with the verification e-mail) is `language` when given, else the dashboard’s `wp_lang` cookie, else the browser’s Accept-Language: Japanese when it prefers `ja`, English otherwise.',
        body: RegisterBody,
        response: {
          201: SessionResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_EMAIL',
            'INVALID_INPUT',
            'EMAIL_IN_USE',
            'RATE_LIMITED',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as { email: string; password: string; language?: Language };
      const { email: rawEmail, password: rawPassword } = body;
      const email = validEmail(rawEmail);
      const password = validPassword(rawPassword, { refuseCommon: app.config.passwordRefuseCommon });
      app.secrets.hash(''); // fail with CONFIG_ERROR before creating a user who could not get a session
      const language = body.language ?? requestLanguage(request);
      const user = await createUser(app.db, { email, passwordHash: await app.passwords.hash(password), language });
      if (!user) throw new AppError('EMAIL_IN_USE');
      const token = await startSession(app, request, reply, user);
      request.log.info({ userId: user.id }, 'user registered');
      sendVerificationEmail(app, user);
      return reply.code(201).send({ user: publicUser(user), token });
    },
  );

  app.post(
    '/login',
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
      const user = await findUserByEmail(app.db, normaliseEmail(email));
      // Same answer, and about the same time, for an unknown e-mail and a wrong password.
      const ok = await app.passwords.verify(user?.passwordHash ?? null, password);
      if (!user || !ok) throw new AppError('INVALID_CREDENTIALS');
      const token = await startSession(app, request, reply, user);
      return { user: publicUser(user), token };
    },
  );

  app.post(
    '/logout',
    {
      onRequest: [app.authenticate({ session: true })],
      schema: {
        tags: ['auth'],
        summary: 'End the session',
        security: [{ session: [] }, { sessionCookie: [] }],
        response: {
          204: { type: 'null', description: 'Session ended' },
          ...errorResponses('UNAUTHORIZED', 'INVALID_SESSION'),
        },
      },
    },
    async (request, reply) => {
      if (request.principal?.kind === 'session') await deleteSession(app.db, request.principal.tokenHash);
      clearSessionCookie(app, reply);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/me',
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
    '/me',
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

  app.get(
    '/providers',
    {
      schema: {
        tags: ['auth'],
        summary: 'The sign-in methods this server offers besides e-mail and password',
        security: [],
        response: { 200: ProvidersResponse },
      },
    },
    async () => ({ github: app.config.github.clientId !== null && app.config.github.clientSecret !== null }),
  );
}
