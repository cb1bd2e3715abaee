import { createECDH } from 'node:crypto';
import t from 'tap';
import { isP256Point, isValidSubscriptionKeys } from '../src/index.js';

t.test('isP256Point agrees with OpenSSL on generated keys and refuses what is not on the curve', async (t) => {
  for (let i = 0; i < 200; i++) {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const point = ecdh.getPublicKey();
    t.ok(isP256Point(point));
    const bent = Buffer.from(point);
    bent[1 + (i % 64)] = (bent[1 + (i % 64)] ?? 0) ^ 0x01;
    t.notOk(isP256Point(bent), 'one bit changed');
    t.throws(() => createECDH('prime256v1').computeSecret(bent), 'OpenSSL refuses it too');
  }
  t.notOk(isP256Point(Buffer.alloc(65)), 'leading byte 0');
  t.notOk(isP256Point(Buffer.alloc(64, 4)));
});

t.test('isValidSubscriptionKeys wants a 16-byte auth secret', async (t) => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const p256dh = ecdh.getPublicKey().toString('base64url');
  t.ok(isValidSubscriptionKeys({ p256dh, auth: Buffer.alloc(16, 7).toString('base64url') }));
  t.notOk(isValidSubscriptionKeys({ p256dh, auth: Buffer.alloc(12, 7).toString('base64url') }));
  t.notOk(isValidSubscriptionKeys({ p256dh: 'BPub', auth: Buffer.alloc(16, 7).toString('base64url') }));
});
