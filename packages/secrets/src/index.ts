import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets at rest. VAPID private keys are sealed with AES-256-GCM under ENCRYPTION_KEY, format
 * `v2.<iv>.<tag>.<ciphertext>` (base64url parts), with the row they belong to as additional
 * authenticated data: a ciphertext copied into another app's row does not open there. `v1` (the
 * same without additional data) is still opened, so rows written before v2 keep working until
 * they are re-sealed. API keys and session tokens are stored only as HMAC-SHA-256 under
 * API_KEY_PEPPER, so a database dump alone opens nothing.
 */

const LEGACY_VERSION = 'v1';
const SEALED_VERSION = 'v2';

/** The additional data that binds an app's VAPID private key to that app. */
export const vapidKeyContext = (appId: string): string => `webpush:app:${appId}:vapid-private-key`;
/** The additional data an app's identity secret (the key its uidSignatures are made with) is sealed under. */
export const identitySecretContext = (appId: string): string => `webpush:app:${appId}:identity-secret`;
/** The additional data an app's webhook signing secret (`whsec_…`) is sealed under. */
export const webhookSecretContext = (appId: string): string => `webpush:app:${appId}:webhook-secret`;

/** A ciphertext of the old format, not bound to its row: re-seal it with `sealSecret`. */
export const isLegacySealed = (sealed: string): boolean => sealed.startsWith(`${LEGACY_VERSION}.`);

export function sealSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SEALED_VERSION, iv, tag, ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Opens a `v2` ciphertext sealed for `context`, or a legacy `v1` one; throws for anything else. */
export function openSecret(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  const known = version === SEALED_VERSION || version === LEGACY_VERSION;
  if (!known || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('sealed secret has an unknown format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (version === SEALED_VERSION) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** Keyed hash used as the lookup value for API keys and session tokens. */
export function keyedHash(pepper: Buffer, secret: string): string {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest('base64url');
}

export const API_KEY_PREFIX = 'wpk_';
export const SESSION_TOKEN_PREFIX = 'wps_';

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
