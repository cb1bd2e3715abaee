import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import { cookieWriteAllowed, dashboardOriginsOf } from '#plugins/app/auth.js';
import { SecondFactorBody, SessionResponse } from '#schemas/auth.js';
import { errorResponses } from '#schemas/common.js';
import { publicUser, startSession } from '../../session-cookie.js';
import { finishTotpSignIn, waitingTotpSignIn } from '../totp-sign-in.js';

/**
 * POST /auth/github/totp: completes a GitHub sign-in that waits for its two-factor code (the
 * `wp_totp_sign_in` cookie the callback set). Limited like password sign-in, per IP and per account.
 */
export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const dashboardOrigins = dashboardOriginsOf(app.config.publicUrl, app.config.env);

  app.post(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: 'Complete a GitHub sign-in with the two-factor code: makes the session',
        body: SecondFactorBody,
        response: {
          200: SessionResponse,
          ...errorResponses(
            'INVALID_INPUT',
            'INVALID_TOKEN',
            'INVALID_CREDENTIALS',
            'TOTP_REQUIRED',
            'ORIGIN_NOT_ALLOWED',
            'RATE_LIMITED',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request, reply) => {
      // The cookie is the credential: a write carried by it comes from the dashboard only.
      if (!cookieWriteAllowed(request, dashboardOrigins)) {
        throw new AppError('ORIGIN_NOT_ALLOWED', { detail: 'NOT_THE_DASHBOARD_ORIGIN' });
      }
      const waiting = await waitingTotpSignIn(app, request);
      if (!waiting) throw new AppError('INVALID_TOKEN');
      const { user, tokenHash } = waiting;
      await app.loginFailures.guard(user.email);
      await app.twoFactor.verifySignIn(user, request.body);
      if (!(await finishTotpSignIn(app, reply, tokenHash))) throw new AppError('INVALID_TOKEN');
      const token = await startSession(app, request, reply, user, 'github');
      request.log.info({ userId: user.id }, 'signed in with GitHub and a two-factor code');
      return { user: publicUser(user), token };
    },
  );
}
