import { createECDH, randomBytes } from 'node:crypto';
import { decryptPushMessage, type SubscriberKeys, waitFor } from '@webpush/testing';
import t, { type Test } from 'tap';
import { ENCRYPTION_OVERHEAD, type SubscriptionKeys } from '../src/encryption.js';
import { createEncryptionPool } from '../src/encryption-pool.js';

function subscriber(): SubscriberKeys & { keys: SubscriptionKeys } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    privateKey: ecdh.getPrivateKey(),
    publicKey: ecdh.getPublicKey(),
    auth,
    keys: { p256dh: ecdh.getPublicKey(), auth },
  };
}

t.test('encrypts on its threads: each body decrypts with its own subscriber key, in order', async (t) => {
  const pool = createEncryptionPool({ threads: 2 });
  t.teardown(() => pool.close());
  const payload = Buffer.from(JSON.stringify({ title: 'こんにちは', body: 'x'.repeat(300) }));
  const subscribers = Array.from({ length: 40 }, subscriber);
  // Several batches at once, spread over both threads.
  const batches = await Promise.all([
    pool.encrypt(
      payload,
      subscribers.slice(0, 3).map((s) => s.keys),
    ),
    pool.encrypt(
      payload,
      subscribers.slice(3, 20).map((s) => s.keys),
    ),
    pool.encrypt(
      payload,
      subscribers.slice(20).map((s) => s.keys),
    ),
  ]);
  const bodies = batches.flat();
  t.equal(bodies.length, 40);
  const senderKeys = new Set<string>();
  bodies.forEach((body, i) => {
    if (!Buffer.isBuffer(body)) throw new Error(`body ${i} is ${String(body)}`);
    t.equal(body.length, ENCRYPTION_OVERHEAD + payload.length);
    t.equal(decryptPushMessage(body, subscribers[i] as SubscriberKeys), payload.toString('utf8'), `body ${i}`);
    senderKeys.add(body.subarray(21, 86).toString('hex'));
  });
  t.equal(senderKeys.size, 40, 'a fresh sender key for every message (RFC 8291 §2)');
  t.same(await pool.encrypt(payload, []), []);
});

t.test('a key off the curve is a RangeError in its slot; the others are encrypted', async (t) => {
  const pool = createEncryptionPool({ threads: 1 });
  t.teardown(() => pool.close());
  const good = subscriber();
  const offCurve = Buffer.alloc(65, 7);
  offCurve[0] = 0x04;
  const [first, second, third] = await pool.encrypt(Buffer.from('hi'), [
    good.keys,
    { p256dh: offCurve, auth: randomBytes(16) },
    good.keys,
  ]);
  t.ok(Buffer.isBuffer(first));
  t.type(second, RangeError);
  t.match((second as RangeError).message, /not a point on P-256/);
  t.equal(decryptPushMessage(third as Buffer, good), 'hi');
});

t.test('close rejects what is under way and every later batch', async (t) => {
  const pool = createEncryptionPool({ threads: 1 });
  const keys = Array.from({ length: 200 }, () => subscriber().keys);
  const underWay = t.rejects(pool.encrypt(Buffer.from('late'), keys), /closed/);
  await pool.close();
  await underWay;
  await t.rejects(pool.encrypt(Buffer.from('after'), keys.slice(0, 1)), /closed/);
});

/** A pool of fixture threads (plain JavaScript, failing on cue), closed after the test, and what it reported. */
function fixturePool(t: Test, fixture: string, threads: number) {
  const errors: Error[] = [];
  const pool = createEncryptionPool({
    threads,
    onError: (error) => errors.push(error),
    entry: new URL(`./fixtures/${fixture}`, import.meta.url),
  });
  t.teardown(() => pool.close());
  return { pool, errors };
}

t.test('a thread that dies after it worked is replaced; its batch rejects so the caller can encrypt it', async (t) => {
  const { pool, errors } = fixturePool(t, 'answer-once-thread.mjs', 1);
  const keys = [subscriber().keys, subscriber().keys];
  const [first] = await pool.encrypt(Buffer.from('one'), keys);
  t.match(first, { message: 'refused by the fixture' }, 'the thread answered');
  await t.rejects(pool.encrypt(Buffer.from('two'), keys), /exited with code 3/);
  const [again] = await pool.encrypt(Buffer.from('three'), keys);
  t.match(again, { message: 'refused by the fixture' }, 'a new thread took the next batch');
  t.same(errors, [], 'an exit is not an error event');
});

t.test('threads that cannot start: reported, and every batch rejects at once instead of starting more', async (t) => {
  const { pool, errors } = fixturePool(t, 'failing-thread.mjs', 2);
  const keys = [subscriber().keys];
  await t.rejects(pool.encrypt(Buffer.from('one'), keys), /exited with code 1/);
  // The other thread fails too, on its own time.
  await waitFor(() => errors.length >= 2, 'the second thread reports its failure', { timeoutMs: 10_000 });
  t.equal(errors.length, 2);
  t.match(errors[0], { message: 'this thread cannot start' });
  await t.rejects(pool.encrypt(Buffer.from('two'), keys), /exited with code 1/);
  t.equal(errors.length, 2, 'no thread was started again');
});

t.test('keys that are not decoded subscription keys are refused before any thread sees them', async (t) => {
  const pool = createEncryptionPool({ threads: 1 });
  t.teardown(() => pool.close());
  await t.rejects(pool.encrypt(Buffer.from('x'), [{ p256dh: randomBytes(70), auth: randomBytes(11) }]), RangeError);
});

t.test('the pool needs a thread', async (t) => {
  t.throws(() => createEncryptionPool({ threads: 0 }), RangeError);
});
