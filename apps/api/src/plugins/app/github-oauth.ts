import { randomBytes } from 'node:crypto';
import type { OAuth2Namespace } from '@fastify/oauth2';
import { AppError } from '@webpush/errors';
import { safeEqual } from '@webpush/secrets';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

export const STATE_COOKIE = 'wp_oauth_state';
export const STATE_COOKIE_PATH = '/api/v1/auth/github';

declare module 'fastify' {
  interface FastifyInstance {
    githubOAuth2?: OAuth2Namespace;
  }
}

/** The callback's `state` equals the one the start put in the browser's cookie (constant-time). */
export function stateMatchesCookie(request: FastifyRequest): boolean {
  const { state } = request.query as { state?: string };
  const expected = request.cookies[STATE_COOKIE];
  return typeof state === 'string' && typeof expected === 'string' && safeEqual(state, expected);
}

/** The GitHub client, or OAUTH_NOT_CONFIGURED when GITHUB_CLIENT_ID/SECRET are not set. */
export function githubClient(app: FastifyInstance): OAuth2Namespace {
  if (!app.githubOAuth2) throw new AppError('OAUTH_NOT_CONFIGURED');
  return app.githubOAuth2;
}

/**
 * GitHub sign-in (docs/accounts.md) with @fastify/oauth2, registered once for /auth/github and its callback.
 * The state is bound to the browser by an HttpOnly cookie and compared in constant time.
 */
export default fp(
  async function githubOAuth(app: FastifyInstance) {
    const { github, publicUrl, secureCookies } = app.config;
    const configured = github.clientId !== null && github.clientSecret !== null;
    if (configured) {
      // Imported only when configured: @fastify/oauth2 with simple-oauth2 and joi is the API's
      // heaviest dependency to load, and most installations never sign in with GitHub.
      const { default: oauth2 } = await import('@fastify/oauth2');
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
  },
  { name: 'github-oauth', dependencies: ['config'] },
);
