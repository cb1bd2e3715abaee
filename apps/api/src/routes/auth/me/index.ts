import { setUserLanguage } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { MeResponse, UpdateMeBody } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import type { Language } from '#src/languages.js';
import { publicUser } from '../session-cookie.js';

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
}
