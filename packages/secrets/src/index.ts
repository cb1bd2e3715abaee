import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets at rest. VAPID private keys are sealed with AES-256-GCM under ENCRYPTION_KEY, format
 * `v2.<iv>.<tag>.<ciphertext>` (base64url parts), with the row they belong to as additional
 * authenticated data: a ciphertext copied into another app's row does not open there. `v1` (the
 * same without additional data) is still opened for VAPID keys only, so rows written before v2 keep
 * working until they are re-sealed. The IV is 12 bytes and the tag 16, both checked. API keys and session tokens are stored only as HMAC-SHA-256 under
 * API_KEY_PEPPER, so a database dump alone opens nothing.
 */

const LEGACY_VERSION = 'v1';
const SEALED_VERSION = 'v2';
/** The GCM tag length, pinned: without it Node's decipher accepts a truncated tag. */
const TAG_BYTES = 16;
const IV_BYTES = 12;

/** The additional data that binds an app's VAPID private key to that app. */
export const vapidKeyContext = (appId: string): string => `webpush:app:${appId}:vapid-private-key`;
const isVapidKeyContext = (context: string): boolean =>
  context.startsWith('webpush:app:') && context.endsWith(':vapid-private-key');
/** The additional data an app's identity secret (the key its uidSignatures are made with) is sealed under. */
export const identitySecretContext = (appId: string): string => `webpush:app:${appId}:identity-secret`;
/** The additional data an app's webhook signing secret (`whsec_…`) is sealed under. */
export const webhookSecretContext = (appId: string): string => `webpush:app:${appId}:webhook-secret`;
/** The seal context of an account's TOTP secret (two-factor sign-in). */
export const totpSecretContext = (userId: string): string => `webpush:user:${userId}:totp-secret`;

/** A ciphertext of the old format, not bound to its row: re-seal it with `sealSecret`. */
export const isLegacySealed = (sealed: string): boolean => sealed.startsWith(`${LEGACY_VERSION}.`);

export function sealSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SEALED_VERSION, iv, tag, ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/**
 * Opens a `v2` ciphertext sealed for `context`; throws for anything else. A legacy `v1` one (no
 * additional data) opens only for a VAPID private key, the one kind of secret written before `v2`
 * existed (the API re-seals those at start), never for an identity or webhook secret.
 */
export function openSecret(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  const legacy = version === LEGACY_VERSION && isVapidKeyContext(context);
  if ((version !== SEALED_VERSION && !legacy) || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('sealed secret has an unknown format');
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const tagBytes = Buffer.from(tag, 'base64url');
  if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('sealed secret is malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, ivBytes, { authTagLength: TAG_BYTES });
  if (!legacy) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tagBytes);
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** Keyed hash used as the lookup value for API keys and session tokens. */
export function keyedHash(pepper: Buffer, secret: string): string {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest('base64url');
}

export const API_KEY_PREFIX = 'wpk_';
export const SESSION_TOKEN_PREFIX = 'wps_';
/** Personal access tokens: act as their user on /apps/** (never on /auth/**). */
export const ACCESS_TOKEN_PREFIX = 'wpt_';

/** A bearer secret with 256 bits of randomness, e.g. `wpk_…` or `wps_…`. */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Constant-time string comparison that does not leak length through early exit. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHmac('sha256', 'compare').update(a).digest();
  const right = createHmac('sha256', 'compare').update(b).digest();
  return timingSafeEqual(left, right);
}

const BASIC = /^Basic ([A-Za-z0-9+/=]+)$/i;

/**
 * Whether an `Authorization: Basic …` header carries exactly these credentials. Both halves are
 * compared in constant time, and both always, so timing tells nothing about which one was wrong.
 */
export function basicAuthMatches(
  header: string | undefined,
  expected: { readonly username: string; readonly password: string },
): boolean {
  const match = BASIC.exec(header?.trim() ?? '');
  const decoded = match?.[1] ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const separator = decoded.indexOf(':');
  const username = separator >= 0 ? decoded.slice(0, separator) : '';
  const password = separator >= 0 ? decoded.slice(separator + 1) : '';
  const userOk = safeEqual(username, expected.username);
  const passwordOk = safeEqual(password, expected.password);
  return separator >= 0 && userOk && passwordOk;
}
