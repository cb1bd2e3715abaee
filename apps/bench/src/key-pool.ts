import { createECDH, createHmac } from 'node:crypto';
import type { SubscriberKeys } from '@webpush/testing';

/**
 * Subscriber key pairs for the benchmark, derived from a seed so the bench process (which stores
 * the public halves) and the push stand-in (which needs the private halves to decrypt its samples)
 * agree without passing keys around. Subscription `n` uses pair `n mod size`.
 *
 * Reusing a pair across rows keeps seeding a million subscriptions fast, and changes nothing for a
 * sender benchmark: the sender makes a fresh ephemeral ECDH key and salt per message anyway, so
 * every message costs the same whether or not its subscriber key was seen before.
 */

export interface PooledKey {
  /** The subscriber's side, for decrypting. */
  secret: SubscriberKeys;
  /** base64url, as a browser's `getKey('p256dh')` gives it. */
  p256dh: string;
  /** base64url 16-byte auth secret. */
  auth: string;
}

export function subscriberKeyPool(seed: Buffer, size: number): PooledKey[] {
  const pool: PooledKey[] = [];
  for (let index = 0; pool.length < size; index++) {
    const ecdh = createECDH('prime256v1');
    try {
      ecdh.setPrivateKey(createHmac('sha256', seed).update(`p256dh:${index}`).digest());
    } catch {
      continue; // a scalar ≥ the curve order (odds ~2⁻³²): take the next index
    }
    const auth = createHmac('sha256', seed).update(`auth:${index}`).digest().subarray(0, 16);
    const publicKey = ecdh.getPublicKey();
    pool.push({
      secret: { privateKey: ecdh.getPrivateKey(), publicKey, auth },
      p256dh: publicKey.toString('base64url'),
      auth: auth.toString('base64url'),
    });
  }
  return pool;
}

/** Endpoint paths on the stand-in are `/push/<n>`, n = 1…N; null for any other path. */
export function subscriptionNumber(path: string | undefined): number | null {
  const match = /^\/push\/(\d{1,9})$/.exec(path ?? '');
  return match?.[1] === undefined ? null : Number(match[1]);
}
