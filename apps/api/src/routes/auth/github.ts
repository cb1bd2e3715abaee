import { randomBytes } from 'node:crypto';
import oauth2, { type OAuth2Namespace } from '@fastify/oauth2';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { signInGithubUser } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { safeEqual } from '@webpush/secrets';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestLanguage } from '../../languages.js';
import { errorResponses } from '../../schemas/common.js';
import { normaliseEmail } from './index.js';
import { startSession } from './session-cookie.js';

const STATE_COOKIE = 'wp_oauth_state';
const STATE_COOKIE_PATH = '/api/v1/auth/github';
/** How long a used state is remembered: longer than any sign-in takes between start and callback. */
const USED_STATE_TTL_SECONDS = 3_600;

declare module 'fastify' {
  interface FastifyInstance {
    githubOAuth2?: OAuth2Namespace;
  }
}

interface GithubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/** The callback's `state` equals the one the start put in the browser's cookie (constant-time). */
function stateMatchesCookie(request: FastifyRequest): boolean {
  const { state } = request.query as { state?: string };
  const expected = request.cookies[STATE_COOKIE];
  return typeof state === 'string' && typeof expected === 'string' && safeEqual(state, expected);
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

/**
 * GitHub sign-in (SPEC §5.6) with @fastify/oauth2. The state is bound to the browser by an HttpOnly
 * cookie and compared in constant time; accounts are created or linked only by a *verified*
 * primary e-mail, so a GitHub account cannot claim someone else's address, and only to an account
 * that verified its e-mail too (409 EMAIL_IN_USE otherwise), so a pre-registration cannot claim the
 * GitHub user.
 */
export default async function githubRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { github, publicUrl, secureCookies } = app.config;
  const configured = github.clientId !== null && github.clientSecret !== null;

  if (configured) {
    const authorize = new URL(github.authorizeUrl);
    const token = new URL(github.tokenUrl);
    await app.register(oauth2, {
      name: 'githubOAuth2',
      scope: ['read:user', 'user:email'],
      credentials: {
        client: { id: github.clientId ?? '', secret: github.clientSecret ?? '' },
        auth: {
          authorizeHost: authorize.origin,
          authorizePath: authorize.pathname,
          tokenHost: token.origin,
          tokenPath: token.pathname,
        },
        // GitHub documents client_id/client_secret as form fields of the token request, not Basic auth.
        options: { authorizationMethod: 'body' },
      },
      callbackUri: `${publicUrl}/api/v1/auth/github/callback`,
      redirectStateCookieName: STATE_COOKIE,
      cookie: { httpOnly: true, sameSite: 'lax', secure: secureCookies, path: STATE_COOKIE_PATH },
      // @fastify/oauth2 refuses a custom check without a custom generator (the plugin fails to load).
      generateStateFunction: () => randomBytes(16).toString('base64url'),
      checkStateFunction: stateMatchesCookie,
    });
  }

  /**
   * A state is good for one callback. The browser's cookie is cleared on first use, and the state is
   * recorded in Redis (SET NX, shared by every instance), so a replayed state/cookie pair — a copied
   * callback URL, a cookie that survived — is INVALID_STATE, even before GitHub refuses the used code.
   */
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
    const first = await app.redis.set(key, '1', 'EX', USED_STATE_TTL_SECONDS, 'NX');
    if (first !== 'OK') {
      request.log.warn('GitHub callback with a state that was already used');
      throw new AppError('INVALID_STATE');
    }
  }

  const oauth = (): OAuth2Namespace => {
    if (!app.githubOAuth2) throw new AppError('OAUTH_NOT_CONFIGURED');
    return app.githubOAuth2;
  };

  app.get(
    '/',
    {
      onRequest: [app.limiters.login],
      schema: {
        tags: ['auth'],
        summary: "Start GitHub sign-in: 302 to GitHub's authorize page",
        response: {
          302: { type: 'null', description: 'Redirect to GitHub' },
          ...errorResponses('OAUTH_NOT_CONFIGURED', 'RATE_LIMITED'),
        },
      },
    },
    async (request, reply) => {
      const uri = await oauth().generateAuthorizationUri(request, reply);
      return reply.redirect(uri, 302);
    },
  );

  app.get(
    '/callback',
    {
      onRequest: [app.limiters.oauthCallback],
      schema: {
        tags: ['auth'],
        summary: 'GitHub OAuth callback: signs in and 302s to the dashboard with the session cookie',
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
      await startSession(app, request, reply, user);
      request.log.info({ userId: user.id }, 'signed in with GitHub');
      return reply.redirect(`${publicUrl}/`, 302);
    },
  );
}
