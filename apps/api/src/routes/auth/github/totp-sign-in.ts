import { createAccountToken, findAccountTokenUser, spendAccountToken, type User } from '@webpush/db';
import { generateToken } from '@webpush/secrets';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATE_COOKIE_PATH } from '#plugins/app/github-oauth.js';

/**
 * A GitHub sign-in to an account with two-factor sign-in on makes no session at once: the callback
 * stores a single-use token (its keyed hash) and hands it to the browser in an HttpOnly cookie on
 * /api/v1/auth/github; POST /auth/github/totp with the code and that cookie makes the session.
 */
export const TOTP_SIGN_IN_COOKIE = 'wp_totp_sign_in';
const TOTP_SIGN_IN_PREFIX = 'wpg_';
/** Long enough to find the phone, short enough that a forgotten tab is not a half-open door. */
const TOTP_SIGN_IN_SECONDS = 600;

const cookieOptions = (app: FastifyInstance) => ({
  httpOnly: true,
  sameSite: 'lax' as const,
  secure: app.config.secureCookies,
  path: STATE_COOKIE_PATH,
});

export async function startTotpSignIn(app: FastifyInstance, reply: FastifyReply, user: User): Promise<void> {
  const token = generateToken(TOTP_SIGN_IN_PREFIX);
  await createAccountToken(app.db, {
    userId: user.id,
    purpose: 'totp_sign_in',
    tokenHash: app.secrets.hash(token),
    expiresAt: new Date(Date.now() + TOTP_SIGN_IN_SECONDS * 1000),
  });
  reply.setCookie(TOTP_SIGN_IN_COOKIE, token, { ...cookieOptions(app), maxAge: TOTP_SIGN_IN_SECONDS });
}

/** The account a waiting GitHub sign-in is for (from the request's cookie), or null. */
export async function waitingTotpSignIn(
  app: FastifyInstance,
  request: FastifyRequest,
): Promise<{ user: User; tokenHash: string } | null> {
  const token = request.cookies[TOTP_SIGN_IN_COOKIE];
  if (!token?.startsWith(TOTP_SIGN_IN_PREFIX)) return null;
  const tokenHash = app.secrets.hash(token);
  const user = await findAccountTokenUser(app.db, 'totp_sign_in', tokenHash);
  return user ? { user, tokenHash } : null;
}

/** Spends the waiting sign-in and clears its cookie: true for the one request that completes it. */
export async function finishTotpSignIn(app: FastifyInstance, reply: FastifyReply, tokenHash: string): Promise<boolean> {
  reply.clearCookie(TOTP_SIGN_IN_COOKIE, cookieOptions(app));
  return spendAccountToken(app.db, 'totp_sign_in', tokenHash);
}
