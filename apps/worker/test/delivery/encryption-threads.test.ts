import { createEncryptionPool, type EncryptionPool, legacyPayload } from '@webpush/push';
import t, { type Test } from 'tap';
import { deliveryHarness } from '../helper.js';

// PUSH_CRYPTO_THREADS: the chunk's pushes are encrypted on worker threads ahead of its lanes, or on
// the event loop with 0. Either way every subscriber gets one message that decrypts, and the push
// stand-in verifies it (RFC 8291 decryption, RFC 8292 signature).
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '30', PUSH_CONCURRENCY: '7' });
const { push } = harness;

/** A real pool that counts the subscriptions it was asked to encrypt. */
function watchedPool(t: Test): EncryptionPool & { encrypted: number } {
  const pool = createEncryptionPool({ threads: 2 });
  t.teardown(() => pool.close());
  const watched = {
    threads: pool.threads,
    encrypted: 0,
    encrypt: (
      payload: Buffer,
      ...rest: [Parameters<EncryptionPool['encrypt']>[1], Parameters<EncryptionPool['encrypt']>[2]]
    ) => {
      watched.encrypted += rest[0].length;
      return pool.encrypt(payload, ...rest);
    },
    close: () => pool.close(),
  };
  return watched;
}

async function deliverTo(t: Test, count: number) {
  const owner = await harness.owner();
  const subscribers = await harness.insertSubscriptions(owner, count);
  const { id } = await harness.notify(owner, { title: 'Threads', body: 'or not' });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', targets: count, sent: count, failed: 0, expired: 0 });
  const expected = legacyPayload({ title: 'Threads', body: 'or not' }, id);
  for (const subscriber of subscribers) {
    const messages = push.received.filter((message) => message.subscriptionId === subscriber.id);
    t.equal(messages.length, 1);
    t.equal(messages[0]?.payload, expected);
  }
  t.strictSame(push.protocolErrors, []);
}

t.test('with encryption threads, every push of every chunk is encrypted on them and verifies', async (t) => {
  const pool = watchedPool(t);
  const worker = await harness.startInProcessWorker({ deps: { encryption: pool } });
  await deliverTo(t, 75);
  t.equal(pool.encrypted, 75, 'each target once, none on the event loop');
  await worker.close();
});

t.test('PUSH_CRYPTO_THREADS=0: the sender encrypts on the event loop, and every push verifies', async (t) => {
  const config = { ...harness.config, delivery: { ...harness.config.delivery, cryptoThreads: 0 } };
  const worker = await harness.startInProcessWorker({ config });
  await deliverTo(t, 40);
  await worker.close();
});
