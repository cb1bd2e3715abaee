import { createECDH, randomBytes } from 'node:crypto';
import t from 'tap';
import {
  decodeSubscriptionKeys,
  encryptPayload,
  MAX_PLAINTEXT_BYTES,
  RECORD_SIZE,
  type SubscriptionKeys,
} from '../src/encryption.js';

const b = (text: string) => Buffer.from(text, 'base64url');

// RFC 8291 Appendix A.
const RFC = {
  plaintext: 'When I grow up, I want to be a watermelon',
  asPrivate: 'yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw',
  uaPublic: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
  authSecret: 'BTBZMqHH6r4Tts7J_aSIgg',
  salt: 'DGv6ra1nlYgDCS1FRnbzlw',
  body:
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_' +
    'yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
};

function subscriberKeys(): SubscriptionKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey(), auth: randomBytes(16) };
}

t.test('reproduces the RFC 8291 Appendix A message byte for byte', async (t) => {
  const body = encryptPayload(
    RFC.plaintext,
    { p256dh: b(RFC.uaPublic), auth: b(RFC.authSecret) },
    { salt: b(RFC.salt), senderPrivateKey: b(RFC.asPrivate) },
  );
  t.equal(body.toString('base64url'), RFC.body);
});

t.test('writes the aes128gcm header: salt, rs 4096, a 65-byte keyid, one record', async (t) => {
  const payload = Buffer.from('{"title":"hi"}');
  const body = encryptPayload(payload, subscriberKeys());
  t.equal(body.readUInt32BE(16), RECORD_SIZE);
  t.equal(body[20], 65);
  t.equal(body[21], 0x04, 'keyid is an uncompressed point');
  t.equal(body.length, 16 + 4 + 1 + 65 + payload.length + 1 + 16, 'plaintext + delimiter + tag, no padding');
});

t.test('uses a new ephemeral key pair and salt for every message', async (t) => {
  const keys = subscriberKeys();
  const bodies = Array.from({ length: 20 }, () => encryptPayload('same payload', keys));
  const senderKeys = new Set(bodies.map((body) => body.subarray(21, 86).toString('hex')));
  const salts = new Set(bodies.map((body) => body.subarray(0, 16).toString('hex')));
  t.equal(senderKeys.size, 20, 'no sender key is reused');
  t.equal(salts.size, 20, 'no salt is reused');
});

t.test('takes payloads up to one record and refuses larger ones', async (t) => {
  const keys = subscriberKeys();
  t.equal(MAX_PLAINTEXT_BYTES, 4079);
  t.equal(encryptPayload(Buffer.alloc(MAX_PLAINTEXT_BYTES, 0x61), keys).length, 86 + RECORD_SIZE);
  t.throws(() => encryptPayload(Buffer.alloc(MAX_PLAINTEXT_BYTES + 1, 0x61), keys), RangeError);
});

t.test('refuses a p256dh that is not on the curve', async (t) => {
  const notOnCurve = Buffer.alloc(65, 1);
  notOnCurve[0] = 0x04;
  t.throws(() => encryptPayload('x', { p256dh: notOnCurve, auth: randomBytes(16) }), RangeError);
});

t.test('decodeSubscriptionKeys checks the key sizes', async (t) => {
  const good = subscriberKeys();
  const p256dh = good.p256dh.toString('base64url');
  const auth = good.auth.toString('base64url');
  t.ok(decodeSubscriptionKeys({ p256dh, auth }), 'base64url');
  t.ok(
    decodeSubscriptionKeys({ p256dh: good.p256dh.toString('base64'), auth: good.auth.toString('base64') }),
    'base64',
  );
  t.equal(decodeSubscriptionKeys({ p256dh: p256dh.slice(0, -2), auth }), null, 'short p256dh');
  const compressed = Buffer.concat([Buffer.from([0x02]), good.p256dh.subarray(1, 33)]).toString('base64url');
  t.equal(decodeSubscriptionKeys({ p256dh: compressed, auth }), null, 'compressed point');
  t.equal(decodeSubscriptionKeys({ p256dh, auth: randomBytes(15).toString('base64url') }), null, 'auth of 15 bytes');
  t.equal(decodeSubscriptionKeys({ p256dh, auth: randomBytes(32).toString('base64url') }), null, 'auth of 32 bytes');
});
