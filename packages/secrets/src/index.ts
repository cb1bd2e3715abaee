import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets at rest. VAPID private keys are sealed with AES-256-GCM under ENCRYPTION_KEY
 * (format `v1.<iv>.<tag>.<ciphertext>`, base64url parts); API keys and session tokens are stored
 * only as HMAC-SHA-256 under API_KEY_PEPPER, so a database dump alone opens nothing.
 */

const SEALED_VERSION = 'v1';

export function sealSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SEALED_VERSION, iv, tag, ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== SEALED_VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('sealed secret has an unknown format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
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
