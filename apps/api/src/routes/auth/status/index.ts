import { isAppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '#plugins/app/auth.js';
import { SignInStatusResponse } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { publicUser } from '../session-cookie.js';

/**
 * Whether the caller is signed in, as an answer rather than an error: the dashboard asks it on
 * every page, signed out too, where GET /auth/me's 401 would be a red line in the console each time.
 */
export default async function routes(app: FastifyInstance) {
  const authenticateSession = app.authenticate({ session: true });

  app.get(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'The signed-in user, or `{user: null}` when not signed in (never 401)',
        security: [{ session: [] }, { sessionCookie: [] }, {}],
        response: { 200: SignInStatusResponse, ...errorResponses('CONFIG_ERROR') },
      },
    },
    async (request, reply) => {
      try {
        await authenticateSession.call(app, request, reply);
      } catch (error) {
        if (isAppError(error) && error.statusCode === 401) return { user: null };
        throw error;
      }
      return { user: publicUser(sessionUser(request)) };
    },
  );
}
