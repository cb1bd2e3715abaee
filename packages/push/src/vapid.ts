import { createECDH, createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { isP256Point } from './encryption.js';
import { LruMap } from './lru-map.js';
import type { VapidCredentials } from './types.js';

/**
 * RFC 8292 VAPID: `Authorization: vapid t=<ES256 JWT>, k=<public key>`.
 *
 * Not web-push's `getVapidHeaders`: it signs a new JWT on every call, which costs three times the
 * encryption (docs/performance.md). Here the private key is imported once per app, and a JWT is
 * signed once per (app, push-service origin) and reused until an hour before it expires, which
 * RFC 8292 §2 allows and push services expect (Apple refuses refreshes more often than hourly).
 */

/** `exp` is 12 h ahead: within RFC 8292's 24 h, and safe against a push service's clock skew. */
export const JWT_LIFETIME_SECONDS = 12 * 60 * 60;
export const JWT_REFRESH_MARGIN_SECONDS = 60 * 60;
const DEFAULT_CAPACITY = 10_000;

const JWT_HEADER = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'ES256' })).toString('base64url');

export class VapidKeyError extends Error {
  override readonly name = 'VapidKeyError';
}

interface ImportedKey {
  publicKey: string;
  privateKey: string;
  key: KeyObject;
  /** The public key re-encoded as unpadded base64url, the form `k=` must carry. */
  k: string;
}

interface CachedJwt {
  publicKey: string;
  subject: string;
  authorization: string;
  refreshAtMs: number;
}

function importKey(vapid: VapidCredentials): ImportedKey {
  const publicPoint = Buffer.from(vapid.publicKey, 'base64url');
  const d = Buffer.from(vapid.privateKey, 'base64url');
  if (publicPoint.length !== 65 || publicPoint[0] !== 0x04)
    throw new VapidKeyError('VAPID public key is not a P-256 point');
  if (d.length !== 32) throw new VapidKeyError('VAPID private key is not 32 bytes');
  // A pair that does not match would be refused by every push service (403); say so here instead.
  const derived = createECDH('prime256v1');
  try {
    derived.setPrivateKey(d);
  } catch (error) {
    throw new VapidKeyError('VAPID private key is not a valid P-256 scalar', { cause: error });
  }
  if (!derived.getPublicKey().equals(publicPoint))
    throw new VapidKeyError('VAPID public and private keys do not match');
  const key = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: publicPoint.subarray(1, 33).toString('base64url'),
      y: publicPoint.subarray(33).toString('base64url'),
      d: d.toString('base64url'),
    },
  });
  return { publicKey: vapid.publicKey, privateKey: vapid.privateKey, key, k: publicPoint.toString('base64url') };
}

/** Standard base64 or base64url, with or without padding: the forms other services and tools export. */
const BASE64_KEY = /^[A-Za-z0-9+/_-]+={0,2}$/;

function decodeKey(value: string): Buffer | null {
  if (!BASE64_KEY.test(value)) return null;
  return Buffer.from(value.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
}

export interface VapidKeyPair {
  publicKey: string;
  privateKey: string;
}

/**
 * A VAPID key pair brought from elsewhere, in the unpadded base64url form the sender stores; null
 * unless the public key is an uncompressed P-256 point, the private key 32 bytes, a valid scalar,
 * and the private key gives that public key (every push service would refuse a mismatched pair).
 */
export function checkVapidKeyPair(pair: VapidKeyPair): VapidKeyPair | null {
  const point = decodeKey(pair.publicKey);
  const d = decodeKey(pair.privateKey);
  if (point === null || d === null || d.length !== 32 || !isP256Point(point)) return null;
  const derived = createECDH('prime256v1');
  try {
    derived.setPrivateKey(d);
  } catch {
    return null;
  }
  if (!derived.getPublicKey().equals(point)) return null;
  return { publicKey: point.toString('base64url'), privateKey: d.toString('base64url') };
}

export interface VapidSignerOptions {
  capacity?: number;
  now?: () => number;
}

export class VapidSigner {
  readonly #keys: LruMap<string, ImportedKey>;
  readonly #jwts: LruMap<string, CachedJwt>;
  readonly #now: () => number;

  constructor(options: VapidSignerOptions = {}) {
    const capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.#keys = new LruMap(capacity);
    this.#jwts = new LruMap(capacity);
    this.#now = options.now ?? Date.now;
  }

  authorization(vapid: VapidCredentials, audience: string): string {
    const cacheKey = `${vapid.cacheKey}\n${audience}`;
    const now = this.#now();
    const cached = this.#jwts.get(cacheKey);
    if (
      cached !== undefined &&
      cached.refreshAtMs > now &&
      cached.publicKey === vapid.publicKey &&
      cached.subject === vapid.subject
    ) {
      return cached.authorization;
    }
    if (!/^(mailto:|https:)/.test(vapid.subject)) {
      throw new VapidKeyError('VAPID subject must be a mailto: or https: URL');
    }
    const imported = this.#importedKey(vapid);
    const exp = Math.floor(now / 1000) + JWT_LIFETIME_SECONDS;
    const claims = Buffer.from(JSON.stringify({ aud: audience, exp, sub: vapid.subject })).toString('base64url');
    const signingInput = `${JWT_HEADER}.${claims}`;
    const signature = sign('sha256', Buffer.from(signingInput), { key: imported.key, dsaEncoding: 'ieee-p1363' });
    const authorization = `vapid t=${signingInput}.${signature.toString('base64url')}, k=${imported.k}`;
    this.#jwts.set(cacheKey, {
      publicKey: vapid.publicKey,
      subject: vapid.subject,
      authorization,
      refreshAtMs: (exp - JWT_REFRESH_MARGIN_SECONDS) * 1000,
    });
    return authorization;
  }

  #importedKey(vapid: VapidCredentials): ImportedKey {
    const cached = this.#keys.get(vapid.cacheKey);
    // A rotated key under the same app id is imported afresh; its old JWTs fail the publicKey check.
    if (cached !== undefined && cached.publicKey === vapid.publicKey && cached.privateKey === vapid.privateKey) {
      return cached;
    }
    const imported = importKey(vapid);
    this.#keys.set(vapid.cacheKey, imported);
    return imported;
  }
}
