import { createECDH, randomBytes } from 'node:crypto';
import { createEncryptionPool } from '@webpush/push';
import { decryptPushMessage, type SubscriberKeys } from '@webpush/testing';
import t from 'tap';
import type { BrowserPayload } from '../../src/delivery/browser-payload.js';
import { ChunkBodies, type ChunkTarget } from '../../src/delivery/chunk-bodies.js';

function subscriber(n: number): { target: ChunkTarget; keys: SubscriberKeys } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    target: {
      id: `subscription-${n}`,
      endpoint: `https://push.example/${n}`,
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: auth.toString('base64url'),
    },
    keys: { privateKey: ecdh.getPrivateKey(), publicKey: ecdh.getPublicKey(), auth },
  };
}

const payload = JSON.stringify({ title: 'タイトル', body: 'b' });
/** The same plaintext for every target (a legacy payload). */
const shared: BrowserPayload = {
  template: Buffer.from(payload, 'utf8'),
  textFor: () => payload,
  sizedText: payload,
  linksFor: () => undefined,
};

t.test("every target's body is its own, whatever the chunk's length and the order asked", async (t) => {
  const pool = createEncryptionPool({ threads: 2 });
  t.teardown(() => pool.close());
  for (const length of [1, 4, 5, 20, 21, 53]) {
    const subscribers = Array.from({ length }, (_, n) => subscriber(n));
    const bodies = new ChunkBodies(
      pool,
      shared,
      subscribers.map((s) => s.target),
    );
    // Backwards, so later batches are awaited before earlier ones.
    for (let i = length - 1; i >= 0; i--) {
      const body = await bodies.body(i);
      if (!body) throw new Error(`no body for ${i} of ${length}`);
      t.equal(decryptPushMessage(body, (subscribers[i] as (typeof subscribers)[number]).keys), payload);
    }
    t.equal(await bodies.body(length), undefined, 'past the end: none');
  }
});

t.test('keys that do not decode, or a point off the curve, are left to the sender', async (t) => {
  const pool = createEncryptionPool({ threads: 1 });
  t.teardown(() => pool.close());
  const good = subscriber(0);
  const offCurve = Buffer.alloc(65, 9);
  offCurve[0] = 0x04;
  const targets: ChunkTarget[] = [
    { ...good.target, p256dh: 'c2hvcnQ' },
    { ...good.target, p256dh: offCurve.toString('base64url') },
    good.target,
  ];
  const bodies = new ChunkBodies(pool, shared, targets, 2, 2);
  t.equal(await bodies.body(0), undefined);
  t.equal(await bodies.body(1), undefined);
  t.equal(decryptPushMessage((await bodies.body(2)) as Buffer, good.keys), payload);
});

t.test('a pool that cannot encrypt leaves every body to the sender instead of failing the chunk', async (t) => {
  const pool = createEncryptionPool({ threads: 1 });
  await pool.close();
  const bodies = new ChunkBodies(pool, shared, [subscriber(0).target, subscriber(1).target]);
  t.equal(await bodies.body(0), undefined);
  t.equal(await bodies.body(1), undefined);
});
