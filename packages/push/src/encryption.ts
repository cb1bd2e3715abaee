import { createCipheriv, createECDH, createHmac, randomBytes } from 'node:crypto';

/**
 * RFC 8291 message encryption with the RFC 8188 `aes128gcm` content coding: one record of at most
 * 4096 bytes, the plaintext followed by the 0x02 last-record delimiter and no further padding.
 */

export const RECORD_SIZE = 4096;
const TAG_LENGTH = 16;
/** The largest plaintext that fits one record: 4096 − 16 (GCM tag) − 1 (delimiter). */
export const MAX_PLAINTEXT_BYTES = RECORD_SIZE - TAG_LENGTH - 1;

export const P256_POINT_LENGTH = 65;
export const AUTH_SECRET_LENGTH = 16;
const SALT_LENGTH = 16;
export const ENCRYPTION_OVERHEAD = SALT_LENGTH + 4 + 1 + P256_POINT_LENGTH + 1 + TAG_LENGTH;

const KEY_INFO_PREFIX = Buffer.from('WebPush: info\0', 'latin1');
const CEK_INFO = Buffer.from('Content-Encoding: aes128gcm\0\x01', 'latin1');
const NONCE_INFO = Buffer.from('Content-Encoding: nonce\0\x01', 'latin1');
const ONE = Buffer.from([1]);
const LAST_RECORD_DELIMITER = Buffer.from([2]);

export interface SubscriptionKeys {
  p256dh: Buffer;
  auth: Buffer;
}

/** Decodes stored keys; null when `p256dh` is not a 65-byte uncompressed point or `auth` not 16 bytes. */
// P-256 (secp256r1) field prime and curve constant b; the curve is y² = x³ − 3x + b over GF(p).
const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
const toBigInt = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex')}`);

/**
 * True when `point` is a 65-byte uncompressed point that lies on P-256. The curve equation in
 * BigInt is far cheaper than importing the key through `createPublicKey`, which would be a tenth of
 * `POST /subscribe`'s CPU. P-256's cofactor is 1, so on the curve is in the group.
 */
export function isP256Point(point: Buffer): boolean {
  if (point.length !== P256_POINT_LENGTH || point[0] !== 0x04) return false;
  const x = toBigInt(point.subarray(1, 33));
  const y = toBigInt(point.subarray(33));
  if (x >= P256_P || y >= P256_P) return false;
  return (y * y - (x * x * x - 3n * x + P256_B)) % P256_P === 0n;
}

/**
 * True when the key material of a subscription could have come from a browser: `p256dh` the
 * base64url of an uncompressed P-256 point, `auth` exactly 16 bytes (RFC 8291 §3).
 */
export function isValidSubscriptionKeys(keys: { p256dh: string; auth: string }): boolean {
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  return Buffer.from(keys.auth, 'base64url').length === AUTH_SECRET_LENGTH && isP256Point(p256dh);
}

export function decodeSubscriptionKeys(keys: { p256dh: string; auth: string }): SubscriptionKeys | null {
  const p256dh = Buffer.from(keys.p256dh, 'base64url');
  const auth = Buffer.from(keys.auth, 'base64url');
  if (p256dh.length !== P256_POINT_LENGTH || p256dh[0] !== 0x04 || auth.length !== AUTH_SECRET_LENGTH) return null;
  return { p256dh, auth };
}

export interface FixedEncryptionInputs {
  salt?: Buffer;
  senderPrivateKey?: Buffer;
}

const hmac = (key: Buffer, ...data: Buffer[]): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of data) mac.update(part);
  return mac.digest();
};

/**
 * Encrypts `payload` for one subscription and returns the whole request body (header + record).
 * Each call makes a new ephemeral ECDH key pair and salt: a sender key is never reused (RFC 8291 §2).
 * Throws a RangeError for a payload over one record or keys that are not a valid P-256 point.
 */
export function encryptPayload(
  payload: string | Buffer,
  keys: SubscriptionKeys,
  fixed: FixedEncryptionInputs = {},
): Buffer {
  const plaintext = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (plaintext.length > MAX_PLAINTEXT_BYTES) {
    throw new RangeError(`payload is ${plaintext.length} bytes; one aes128gcm record holds ${MAX_PLAINTEXT_BYTES}`);
  }
  const sender = createECDH('prime256v1');
  if (fixed.senderPrivateKey) sender.setPrivateKey(fixed.senderPrivateKey);
  else sender.generateKeys();
  const senderPublicKey = sender.getPublicKey();
  let sharedSecret: Buffer;
  try {
    sharedSecret = sender.computeSecret(keys.p256dh);
  } catch (error) {
    throw new RangeError('p256dh is not a point on P-256', { cause: error });
  }

  // RFC 8291 §3.4: HKDF with one-block expands, written out as HMACs (each output ≤ 32 bytes).
  const prkKey = hmac(keys.auth, sharedSecret);
  const ikm = hmac(prkKey, KEY_INFO_PREFIX, keys.p256dh, senderPublicKey, ONE);
  const salt = fixed.salt ?? randomBytes(SALT_LENGTH);
  const prk = hmac(salt, ikm);
  const contentKey = hmac(prk, CEK_INFO).subarray(0, 16);
  const nonce = hmac(prk, NONCE_INFO).subarray(0, 12);

  const cipher = createCipheriv('aes-128-gcm', contentKey, nonce);
  const head = cipher.update(plaintext);
  const tail = cipher.update(LAST_RECORD_DELIMITER);
  const final = cipher.final();

  // RFC 8188 §2.1 header: salt(16) ‖ rs(4, big-endian) ‖ idlen(1) ‖ keyid (the sender's public key).
  const header = Buffer.allocUnsafe(SALT_LENGTH + 4 + 1 + senderPublicKey.length);
  salt.copy(header, 0);
  header.writeUInt32BE(RECORD_SIZE, SALT_LENGTH);
  header.writeUInt8(senderPublicKey.length, SALT_LENGTH + 4);
  senderPublicKey.copy(header, SALT_LENGTH + 5);
  return Buffer.concat([header, head, tail, final, cipher.getAuthTag()]);
}
