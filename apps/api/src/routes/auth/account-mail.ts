import { createAccountToken, findUserByEmail } from '@webpush/db';
import { generateToken } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import type { Language } from '../../languages.js';
import { passwordResetMail, verificationMail } from './mail-templates.js';

/** A verification link may sit in an inbox for a while; a reset link must not (docs/accounts.md: one hour). */
export const VERIFY_EMAIL_TTL_MS = 24 * 60 * 60 * 1000;
export const RESET_PASSWORD_TTL_MS = 60 * 60 * 1000;

/** Prefixes only tell a reader what a token is for; it is the stored purpose that decides. */
const VERIFY_EMAIL_PREFIX = 'wpv_';
const RESET_PASSWORD_PREFIX = 'wpr_';
const MAX_EMAIL = 254;

/** Stores the keyed hash of a fresh 256-bit token and returns the token for the link. */
async function issueToken(
  app: FastifyInstance,
  userId: string,
  purpose: 'verify_email' | 'reset_password',
): Promise<string> {
  const token = generateToken(purpose === 'verify_email' ? VERIFY_EMAIL_PREFIX : RESET_PASSWORD_PREFIX);
  const ttl = purpose === 'verify_email' ? VERIFY_EMAIL_TTL_MS : RESET_PASSWORD_TTL_MS;
  await createAccountToken(app.db, {
    userId,
    purpose,
    tokenHash: app.secrets.hash(token),
    expiresAt: new Date(Date.now() + ttl),
  });
  return token;
}

/** After the account is committed: a verification link, in the background, in the account's language. */
export function sendVerificationEmail(
  app: FastifyInstance,
  user: { id: string; email: string; language: Language },
): void {
  app.mailer.sendLater(async () => {
    // Per address as well as per IP: many addresses must not flood one inbox.
    if (!(await app.mayMailAddress('verify_email', user.email))) return null;
    const token = await issueToken(app, user.id, 'verify_email');
    const link = `${app.config.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
    return verificationMail(user.email, user.language, link);
  });
}

/**
 * A reset link to `email` if an account has it, in the account's language. The lookup happens in the background too, so the
 * answer takes the same time whether the address is known or not.
 */
export function sendPasswordResetEmail(app: FastifyInstance, email: string): void {
  app.mailer.sendLater(async () => {
    // Nothing a client sends may reach PostgreSQL in a form it refuses (NUL), nor an impossible address.
    if (email.length > MAX_EMAIL || email.includes('\u0000')) return null;
    const user = await findUserByEmail(app.db, email);
    if (!user) return null;
    if (!(await app.mayMailAddress('reset_password', user.email))) return null;
    const token = await issueToken(app, user.id, 'reset_password');
    const link = `${app.config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`;
    return passwordResetMail(user.email, user.language, link);
  });
}
