import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '@webpush/secrets';

const IDENTITY_SECRET_PREFIX = 'wis_';

/** A new identity secret: 256 random bits; the customer's server uses the whole string as the HMAC key. */
export const generateIdentitySecret = () => `${IDENTITY_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;

/**
 * What a signature is made over: the value itself (the 1.1 uid form), or the value, a NUL and the
 * expiry in decimal Unix seconds. A uid cannot contain NUL (the API refuses it), so a signature
 * made without an expiry can never pass for one with an expiry, nor the reverse.
 */
const signed = (value: string, expires: number | undefined) =>
  expires === undefined ? value : `${value}\u0000${expires}`;

/** The `uidSignature` a customer's server computes: lowercase hex HMAC-SHA-256 of the uid under the secret. */
export const uidSignature = (secret: string, uid: string, expires?: number) =>
  createHmac('sha256', secret).update(signed(uid, expires), 'utf8').digest('hex');

/** Tags as they are signed: JSON of the object with its keys sorted, so key order does not matter. */
export const canonicalTags = (tags: Record<string, string>) =>
  JSON.stringify(Object.fromEntries(Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));

/** The `tagsSignature`: lowercase hex HMAC-SHA-256 of the canonical tags under the secret. */
export const tagsSignature = (secret: string, tags: Record<string, string>, expires?: number) =>
  createHmac('sha256', secret)
    .update(signed(canonicalTags(tags), expires), 'utf8')
    .digest('hex');

/** Compared in constant time; anything but the exact lowercase hex signature is wrong. */
export const isValidUidSignature = (secret: string, uid: string, signature: string, expires?: number) =>
  safeEqual(uidSignature(secret, uid, expires), signature);

export const isValidTagsSignature = (
  secret: string,
  tags: Record<string, string>,
  signature: string,
  expires?: number,
) => safeEqual(tagsSignature(secret, tags, expires), signature);
