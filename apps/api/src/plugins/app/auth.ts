import {
  type ApiKeyPrincipal,
  type ApiKeyScope,
  type AuditContext,
  accessTokenUseDue,
  findAccessTokenPrincipal,
  findLiveSession,
  recordAccessTokenUse,
  SESSION_TOUCH_SECONDS,
  touchSession,
  type User,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { ACCESS_TOKEN_PREFIX, API_KEY_PREFIX, SESSION_TOKEN_PREFIX } from '@webpush/secrets';
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';

export const SESSION_COOKIE = 'wp_session';

const scopeRank: Record<ApiKeyScope, number> = { subscribe_only: 0, notify: 1, full: 2 };

export type Principal =
  | { kind: 'session'; user: User; tokenHash: string; sessionId: string }
  /** A personal access token (`wpt_…`): its user, on the routes that admit it (/apps/**). */
  | { kind: 'accessToken'; user: User; tokenId: string }
  | { kind: 'apiKey'; apiKey: ApiKeyPrincipal };

/**
 * What a route accepts. `apiKey` names the lowest scope allowed; omit it for session-only routes.
 * `accessToken`: a personal access token acts as its user wherever a session may (only with `session`).
 */
export interface AuthRule {
  apiKey?: ApiKeyScope;
  session?: boolean;
  accessToken?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    authenticate(rule: AuthRule): onRequestAsyncHookHandler;
  }
}

const BEARER = /^Bearer ([^\s]+)$/i;

/** The bearer token of the request: header first, then (for session routes) the cookie. */
function readToken(request: FastifyRequest, cookieAllowed: boolean): { token: string; fromCookie: boolean } {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = BEARER.exec(header.trim());
    if (!match?.[1]) throw new AppError('UNAUTHORIZED');
    return { token: match[1], fromCookie: false };
  }
  const cookie = cookieAllowed ? request.cookies[SESSION_COOKIE] : undefined;
  if (cookie) return { token: cookie, fromCookie: true };
  throw new AppError('UNAUTHORIZED');
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A write carried by the cookie must come from the dashboard's own origin (docs/security.md,
 * "Cookie writes come from the dashboard's origin only"): SameSite=Lax alone lets a sibling subdomain (same site, other origin) write. An
 * `Origin` other than PUBLIC_URL's, or `Sec-Fetch-Site: cross-site`, is refused; a request with
 * neither header is not a browser's cross-origin request and passes. Bearer tokens are not sent
 * by browsers on their own, so they need no such check.
 */
export function cookieWriteAllowed(request: FastifyRequest, dashboardOrigins: readonly string[]): boolean {
  if (!UNSAFE_METHODS.has(request.method)) return true;
  const origin = request.headers.origin;
  if (origin !== undefined && !dashboardOrigins.includes(origin.toLowerCase())) return false;
  return request.headers['sec-fetch-site'] !== 'cross-site';
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The origins the dashboard is served from: PUBLIC_URL's, and outside production, when PUBLIC_URL
 * is on this machine, the same port under the other loopback names, since the API's log and a
 * person's habit may name either (docs/security.md).
 */
export function dashboardOriginsOf(publicUrl: string, environment: string): string[] {
  const url = new URL(publicUrl);
  const own = url.origin.toLowerCase();
  if (environment === 'production' || !LOOPBACK_HOSTS.includes(url.hostname)) return [own];
  const port = url.port === '' ? '' : `:${url.port}`;
  return [own, ...LOOPBACK_HOSTS.map((host) => `${url.protocol}//${host}${port}`).filter((origin) => origin !== own)];
}

/**
 * The signed-in user of `user`-scoped handlers: a session's, or a personal access token's where the
 * route admits tokens. Throws if the route was declared without either.
 */
export function sessionUser(request: FastifyRequest): User {
  const { principal } = request;
  if (principal?.kind !== 'session' && principal?.kind !== 'accessToken')
    throw new Error('route needs a session principal');
  return principal.user;
}

/** Who the request acts as and from where, for the audit log (docs/security.md). */
export function auditContext(request: FastifyRequest): AuditContext {
  const { principal } = request;
  if (principal?.kind === 'apiKey') return { actor: { type: 'key', id: principal.apiKey.key.id }, ip: request.ip };
  const user = sessionUser(request);
  return { actor: { type: 'user', id: user.id, email: user.email }, ip: request.ip };
}

/** The operator console's changes: the signed-in operator, recorded as actor `operator`. */
export function operatorAuditContext(request: FastifyRequest): AuditContext {
  return { actor: { type: 'operator', id: sessionUser(request).id }, ip: request.ip };
}

export function apiKeyPrincipal(request: FastifyRequest): ApiKeyPrincipal {
  if (request.principal?.kind !== 'apiKey') throw new Error('route needs an API key principal');
  return request.principal.apiKey;
}

/**
 * A `subscribe_only` key of an app with allowed origins works only from those origins (the browser's
 * `Origin` header; absent counts as not allowed). Keys of higher scopes are server-side secrets.
 */
function originAllowed(request: FastifyRequest, principal: ApiKeyPrincipal): boolean {
  if (principal.key.scope !== 'subscribe_only' || principal.allowedOrigins.length === 0) return true;
  const origin = request.headers.origin;
  return typeof origin === 'string' && principal.allowedOrigins.includes(origin.toLowerCase());
}

/**
 * One decision for every route: UNAUTHORIZED for a missing or malformed
 * header, INVALID_API_KEY / INVALID_SESSION for a token that does not authenticate, then
 * INSUFFICIENT_SCOPE, APP_MISMATCH and ORIGIN_NOT_ALLOWED. Tokens are told apart by prefix (`wpk_` /
 * `wps_` / `wpt_`); a personal access token on a route that does not admit it (/auth/**) is
 * INVALID_SESSION, like any token that is not a session.
 */
export default fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('principal', null);
    const dashboardOrigins = dashboardOriginsOf(app.config.publicUrl, app.config.env);
    const publicOrigin = new URL(app.config.publicUrl).origin.toLowerCase();

    app.decorate('authenticate', (rule: AuthRule): onRequestAsyncHookHandler => {
      const acceptsKey = rule.apiKey !== undefined;
      const acceptsSession = rule.session === true;
      const acceptsAccessToken = acceptsSession && rule.accessToken === true;
      const invalid = () => new AppError(acceptsKey ? 'INVALID_API_KEY' : 'INVALID_SESSION');

      return async (request) => {
        const { token, fromCookie } = readToken(request, acceptsSession);
        // Before the session is looked up (and touched): a refused write changes nothing.
        if (fromCookie && !cookieWriteAllowed(request, dashboardOrigins)) {
          const origin = request.headers.origin ?? '(none)';
          request.log.warn(
            { origin, publicUrlOrigin: publicOrigin },
            `refused a signed-in write from ${origin}: the dashboard's origin is PUBLIC_URL's, ${publicOrigin}; open the dashboard there or set PUBLIC_URL`,
          );
          throw new AppError('ORIGIN_NOT_ALLOWED', { detail: 'NOT_THE_DASHBOARD_ORIGIN' });
        }

        if (token.startsWith(API_KEY_PREFIX) && acceptsKey) {
          const principal = await app.apiKeyPrincipals.find(app.secrets.hash(token));
          if (!principal) throw new AppError('INVALID_API_KEY');
          if (scopeRank[principal.key.scope] < scopeRank[rule.apiKey ?? 'full']) {
            throw new AppError('INSUFFICIENT_SCOPE');
          }
          const params = request.params as { appId?: unknown } | undefined;
          if (typeof params?.appId === 'string' && params.appId !== principal.appId) {
            throw new AppError('APP_MISMATCH');
          }
          if (!originAllowed(request, principal)) throw new AppError('ORIGIN_NOT_ALLOWED');
          request.principal = { kind: 'apiKey', apiKey: principal };
          return;
        }

        if (token.startsWith(SESSION_TOKEN_PREFIX) && acceptsSession) {
          const tokenHash = app.secrets.hash(token);
          const session = await findLiveSession(app.db, tokenHash);
          if (!session) throw new AppError('INVALID_SESSION');
          // At most one write per session per minute: the lookup above already read last_used_at.
          if (Date.now() - session.lastUsedAt.getTime() >= SESSION_TOUCH_SECONDS * 1000) {
            await touchSession(app.db, session.sessionId, request.headers['user-agent']).catch((error: unknown) =>
              request.log.warn({ err: error }, 'could not record session use'),
            );
          }
          request.principal = { kind: 'session', user: session.user, tokenHash, sessionId: session.sessionId };
          if (UNSAFE_METHODS.has(request.method)) await app.countSessionWrite(request, session.user.id);
          return;
        }

        if (token.startsWith(ACCESS_TOKEN_PREFIX) && acceptsAccessToken) {
          // Looked up on every request, never cached: a revoked token fails on every instance at once.
          const found = await findAccessTokenPrincipal(app.db, app.secrets.hash(token));
          if (!found) throw new AppError('INVALID_SESSION');
          if (accessTokenUseDue(found.lastUsedAt)) {
            // Beside the request, not before its answer: a lost write costs only a stale "last used".
            recordAccessTokenUse(app.db, found.tokenId).catch((error: unknown) =>
              request.log.warn({ err: error }, 'could not record access token use'),
            );
          }
          request.principal = { kind: 'accessToken', user: found.user, tokenId: found.tokenId };
          if (UNSAFE_METHODS.has(request.method)) await app.countSessionWrite(request, found.user.id);
          return;
        }

        throw invalid();
      };
    });
  },
  { name: 'auth', dependencies: ['config', 'db', 'secrets', 'limiters', 'api-key-principals', '@fastify/cookie'] },
);
