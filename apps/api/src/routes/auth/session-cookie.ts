import type { User } from '@webpush/db';
import { createSession } from '@webpush/db';
import { generateToken, SESSION_TOKEN_PREFIX } from '@webpush/secrets';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '#plugins/app/auth.js';

export const publicUser = (user: User) => ({
  id: user.id,
  email: user.email,
  plan: user.plan,
  emailVerified: user.emailVerified,
  language: user.language,
  role: user.role,
  totpEnabled: user.totpEnabledAt !== null,
});

/**
 * Opens a session: stores only its keyed hash (with `session.created` in the account's audit log,
 * saying how the user signed in), sets the HttpOnly cookie, returns the token.
 */
export async function startSession(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  method: 'register' | 'password' | 'github',
): Promise<string> {
  const token = generateToken(SESSION_TOKEN_PREFIX);
  const ttlSeconds = app.config.sessionTtlDays * 86_400;
  await createSession(
    app.db,
    {
      userId: user.id,
      tokenHash: app.secrets.hash(token),
      expiresAt: new Date(Date.now() + ttlSeconds * 1000),
      userAgent: request.headers['user-agent'],
    },
    { email: user.email, ip: request.ip, method },
  );
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: app.config.secureCookies,
    path: '/',
    maxAge: ttlSeconds,
  });
  return token;
}

export function clearSessionCookie(app: FastifyInstance, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: app.config.secureCookies, path: '/' });
}

/** The id of the session the request came with (routes of a session-only subtree). */
export function currentSessionId(request: FastifyRequest): string {
  if (request.principal?.kind !== 'session') throw new Error('route needs a session principal');
  return request.principal.sessionId;
}
