import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual } from '@webpush/secrets';

const IDENTITY_SECRET_PREFIX = 'wis_';

/** A new identity secret: 256 random bits; the customer's server uses the whole string as the HMAC key. */
export const generateIdentitySecret = () => `${IDENTITY_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;

/** The `uidSignature` a customer's server computes: lowercase hex HMAC-SHA-256 of the uid under the secret. */
export const uidSignature = (secret: string, uid: string) =>
  createHmac('sha256', secret).update(uid, 'utf8').digest('hex');

/** Compared in constant time; anything but the exact lowercase hex signature is wrong. */
export const isValidUidSignature = (secret: string, uid: string, signature: string) =>
  safeEqual(uidSignature(secret, uid), signature);
