import { createUser } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { RegisterBody, SessionResponse } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { type Language, requestLanguage } from '#src/languages.js';
import { sendVerificationEmail } from '../account-mail.js';
import { validEmail } from '../email.js';
import { validPassword } from '../password-rules.js';
import { publicUser, startSession } from '../session-cookie.js';

export default async function routes(app: FastifyInstance) {
  app.post(
    '/',
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
      const token = await startSession(app, request, reply, user, 'register');
      request.log.info({ userId: user.id }, 'user registered');
      sendVerificationEmail(app, user);
      return reply.code(201).send({ user: publicUser(user), token });
    },
  );
}
