import { createPublicKey, verify } from 'node:crypto';
import t from 'tap';
import webpush from 'web-push';
import { LruMap } from '../src/lru-map.js';
import type { VapidCredentials } from '../src/types.js';
import { JWT_LIFETIME_SECONDS, VapidKeyError, VapidSigner } from '../src/vapid.js';

const FCM = 'https://fcm.googleapis.com';
const MOZILLA = 'https://updates.push.services.mozilla.com';
const HOUR = 60 * 60 * 1000;

function credentials(cacheKey = 'app-1', keys = webpush.generateVAPIDKeys()): VapidCredentials {
  return { cacheKey, ...keys, subject: 'mailto:ops@example.com' };
}

function parse(authorization: string) {
  const match = /^vapid t=([^,]+), k=([A-Za-z0-9_-]+)$/.exec(authorization);
  if (!match?.[1] || !match[2]) throw new Error(`not a vapid header: ${authorization}`);
  const [header = '', claims = '', signature = ''] = match[1].split('.');
  return {
    jwt: match[1],
    k: match[2],
    header: JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string },
    signingInput: `${header}.${claims}`,
    signature: Buffer.from(signature, 'base64url'),
  };
}

function verifies(authorization: string, publicKey: string): boolean {
  const { signingInput, signature } = parse(authorization);
  const point = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
  });
  return verify('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }, signature);
}

t.test('signs an RFC 8292 header: ES256 JWT with aud, exp 12 h ahead, sub; k is the public key', async (t) => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);
  const signer = new VapidSigner({ now: () => now });
  const vapid = credentials();
  const authorization = signer.authorization(vapid, FCM);
  const parsed = parse(authorization);
  t.same(parsed.header, { typ: 'JWT', alg: 'ES256' });
  t.same(parsed.claims, { aud: FCM, exp: now / 1000 + JWT_LIFETIME_SECONDS, sub: 'mailto:ops@example.com' });
  t.equal(JWT_LIFETIME_SECONDS, 12 * 3600);
  t.equal(parsed.k, vapid.publicKey);
  t.equal(parsed.signature.length, 64);
  t.ok(verifies(authorization, vapid.publicKey), 'signature verifies with k');
  t.notOk(verifies(authorization, webpush.generateVAPIDKeys().publicKey), 'and not with another key');
});

t.test('reuses one JWT per (app, origin) until an hour before it expires', async (t) => {
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);
  const signer = new VapidSigner({ now: () => now });
  const app1 = credentials('app-1');
  const app2 = credentials('app-2');
  const first = signer.authorization(app1, FCM);
  // ECDSA signatures are randomised: an identical header means it was not signed again.
  t.equal(signer.authorization(app1, FCM), first, 'same app and origin: cached');
  t.not(signer.authorization(app1, MOZILLA), first, 'another origin: its own JWT');
  t.not(signer.authorization(app2, FCM), first, 'another app: its own JWT');

  now += 11 * HOUR - 1;
  t.equal(signer.authorization(app1, FCM), first, 'still reused just under 11 h later');
  now += 1;
  const refreshed = signer.authorization(app1, FCM);
  t.not(refreshed, first, 'replaced with an hour left');
  t.equal(parse(refreshed).claims.exp, now / 1000 + JWT_LIFETIME_SECONDS);
  t.ok(verifies(refreshed, app1.publicKey));
});

t.test('a rotated key or subject under the same app id is signed afresh', async (t) => {
  const signer = new VapidSigner();
  const before = credentials('app-1');
  const first = signer.authorization(before, FCM);
  const rotated = credentials('app-1');
  const second = signer.authorization(rotated, FCM);
  t.equal(parse(second).k, rotated.publicKey);
  t.ok(verifies(second, rotated.publicKey), 'signed with the new private key');
  t.not(second, first);
  const third = signer.authorization({ ...rotated, subject: 'https://example.com/contact' }, FCM);
  t.equal(parse(third).claims.sub, 'https://example.com/contact');
});

t.test('refuses unusable keys and subjects', async (t) => {
  const signer = new VapidSigner();
  const a = credentials();
  const b = webpush.generateVAPIDKeys();
  t.throws(() => signer.authorization({ ...a, privateKey: b.privateKey }, FCM), VapidKeyError, 'mismatched pair');
  t.throws(() => signer.authorization({ ...a, publicKey: a.publicKey.slice(0, 40) }, FCM), VapidKeyError, 'short key');
  t.throws(() => signer.authorization({ ...a, privateKey: 'AAAA' }, FCM), VapidKeyError, 'short private key');
  t.throws(() => signer.authorization({ ...a, subject: 'ops@example.com' }, FCM), VapidKeyError, 'bare address');
});

t.test('the caches are bounded: the least recently used entry goes first', async (t) => {
  const signer = new VapidSigner({ capacity: 2 });
  const vapid = credentials();
  const fcm = signer.authorization(vapid, FCM);
  const mozilla = signer.authorization(vapid, MOZILLA);
  t.equal(signer.authorization(vapid, FCM), fcm, 'FCM touched, Mozilla is now the oldest');
  signer.authorization(vapid, 'https://web.push.apple.com');
  t.equal(signer.authorization(vapid, FCM), fcm, 'FCM kept');
  t.not(signer.authorization(vapid, MOZILLA), mozilla, 'Mozilla was evicted and signed again');

  const map = new LruMap<string, number>(2);
  map.set('a', 1);
  map.set('b', 2);
  map.get('a');
  map.set('c', 3);
  t.equal(map.size, 2);
  t.equal(map.get('b'), undefined);
  t.equal(map.get('a'), 1);
  t.throws(() => new LruMap(0), RangeError);
});
