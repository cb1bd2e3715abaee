import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { signInGithubUser } from '@webpush/db';
import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { githubClient, STATE_COOKIE, STATE_COOKIE_PATH, stateMatchesCookie } from '#plugins/app/github-oauth.js';
import { errorResponses } from '#schemas/common.js';
import { requestLanguage } from '#src/languages.js';
import { normaliseEmail } from '../../email.js';
import { startSession } from '../../session-cookie.js';
import { startTotpSignIn } from '../totp-sign-in.js';

/** How long a used state is remembered: longer than any sign-in takes between start and callback. */
const USED_STATE_TTL_SECONDS = 3_600;

interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
});

/** Calls GitHub's REST API with the user's token; any failure is GITHUB_AUTH_FAILED. */
async function githubGet<T>(apiUrl: string, path: string, accessToken: string): Promise<T> {
  const response = await fetch(`${apiUrl}${path}`, {
    headers: {
      authorization: `Bearer ${accessToken}`,
      accept: 'application/vnd.github+json',
      'user-agent': 'webpush-service',
    },
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`GitHub ${path} answered ${response.status}`);
  return (await response.json()) as T;
}

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { github, publicUrl, secureCookies } = app.config;

  async function consumeState(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    reply.clearCookie(STATE_COOKIE, {
      httpOnly: true,
      sameSite: 'lax',
      secure: secureCookies,
      path: STATE_COOKIE_PATH,
    });
    if (!stateMatchesCookie(request)) throw new AppError('INVALID_STATE');
    const { state = '' } = request.query as { state?: string };
    const key = `${app.config.redisKeyPrefix}:oauth-state-used:${app.secrets.hash(state)}`;
    const first = await app.coordination.setOnce(key, USED_STATE_TTL_SECONDS * 1000);
    if (!first) {
      request.log.warn('GitHub callback with a state that was already used');
      throw new AppError('INVALID_STATE');
    }
  }

  const oauth = () => githubClient(app);

  app.get(
    '/',
    {
      onRequest: [app.limiters.oauthCallback],
      schema: {
        tags: ['auth'],
        summary:
          'GitHub OAuth callback: signs in and 302s to the dashboard with the session cookie; with two-factor sign-in on, 302s to /login?twoFactor=github to ask for the code first',
        querystring: CallbackQuery,
        response: {
          302: { type: 'null', description: 'Signed in; redirect to PUBLIC_URL' },
          ...errorResponses(
            'MISSING_CODE',
            'INVALID_STATE',
            'EMAIL_IN_USE',
            'RATE_LIMITED',
            'GITHUB_AUTH_FAILED',
            'OAUTH_NOT_CONFIGURED',
          ),
        },
      },
    },
    async (request, reply) => {
      const client = oauth();
      if (!request.query.code) throw new AppError('MISSING_CODE');
      await consumeState(request, reply);

      let accessToken: string;
      try {
        const result = await client.getAccessTokenFromAuthorizationCodeFlow(request, reply);
        const value = result.token.access_token;
        if (typeof value !== 'string' || value === '')
          throw new Error(`no access_token (${String((result.token as { error?: unknown }).error ?? 'unknown')})`);
        accessToken = value;
      } catch (error) {
        if (error instanceof Error && error.message === 'Invalid state') throw new AppError('INVALID_STATE');
        throw new AppError('GITHUB_AUTH_FAILED', { cause: error });
      }

      let githubId: number;
      let email: string;
      try {
        const profile = await githubGet<{ id: number }>(github.apiUrl, '/user', accessToken);
        const emails = await githubGet<GithubEmail[]>(github.apiUrl, '/user/emails', accessToken);
        const primary = emails.find((entry) => entry.primary && entry.verified);
        if (typeof profile.id !== 'number' || !primary) throw new Error('GitHub user has no verified primary e-mail');
        githubId = profile.id;
        email = normaliseEmail(primary.email);
      } catch (error) {
        request.log.warn({ err: error }, 'GitHub profile lookup failed');
        throw new AppError('GITHUB_AUTH_FAILED', { cause: error });
      }

      const user = await signInGithubUser(app.db, { githubId, email, language: requestLanguage(request) });
      if (user === 'linked_to_other') {
        request.log.warn({ githubId }, 'GitHub e-mail belongs to an account linked to another GitHub user');
        throw new AppError('GITHUB_AUTH_FAILED');
      }
      if (user === 'unverified') {
        // The account with this e-mail never proved it owns it: it may be someone else's pre-registration.
        request.log.warn({ githubId }, 'GitHub e-mail belongs to an unverified account; not linked');
        throw new AppError('EMAIL_IN_USE');
      }
      if (user.totpEnabledAt !== null) {
        // No session yet: the dashboard asks for the code and completes it (POST /auth/github/totp).
        await startTotpSignIn(app, reply, user);
        request.log.info({ userId: user.id }, 'GitHub sign-in waits for the two-factor code');
        return reply.redirect(`${publicUrl}/login?twoFactor=github`, 302);
      }
      await startSession(app, request, reply, user, 'github');
      request.log.info({ userId: user.id }, 'signed in with GitHub');
      return reply.redirect(`${publicUrl}/`, 302);
    },
  );
}
