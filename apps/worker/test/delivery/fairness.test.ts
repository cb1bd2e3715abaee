import { waitForValue } from '@webpush/testing';
import t, { type Test } from 'tap';
import { deliveryHarness } from '../helper.js';

/*
 * Fair delivery across apps (docs/sending.md): while one app's large send is under way, another
 * app's send to one subscriber goes out ahead of the large send's remaining chunks, on Redis queues
 * and on the embedded mode's PostgreSQL queues. One chunk at a time, 20 targets a chunk and a push
 * service that takes 20 ms an answer, so the large send's 30 chunks take seconds, all of them
 * queued long before the small send arrives: in a plain first-in first-out queue the small send
 * would finish with the large one.
 */
const LARGE = 300;

async function scenario(t: Test, env: Record<string, string>) {
  const harness = await deliveryHarness(t, {
    DELIVERY_CHUNK_SIZE: '20',
    PUSH_CONCURRENCY: '5',
    WORKER_DELIVERY_CONCURRENCY: '1',
    ...env,
  });
  const { push } = harness;
  await harness.startInProcessWorker();
  const large = await harness.owner();
  const small = await harness.owner();
  for (const subscription of await harness.insertSubscriptions(large, LARGE)) {
    push.script(subscription.id, { status: 201, delayMs: 20, times: Number.POSITIVE_INFINITY });
  }
  const [one] = await harness.insertSubscriptions(small, 1);

  const big = await harness.notify(large, { title: 'Everyone', body: 'a large send' });
  t.equal(big.targets, LARGE);
  // Under way: its chunks are planned and queued, and its first pushes are counted.
  const started = await waitForValue(
    () => harness.status(large, big.id),
    (status) => status.sent > 0,
    'the large send has pushed',
  );
  t.ok(started.sent < LARGE, 'the large send is under way');

  const tiny = await harness.notify(small, { title: 'Just you', body: 'a small send' });
  const done = await harness.finished(small, tiny.id, 60_000);
  t.equal(done.sent, 1, 'the small send was pushed');
  const largeThen = await harness.status(large, big.id);
  t.ok(
    largeThen.sent <= LARGE / 2,
    `the small send finished while the large one had sent ${largeThen.sent} of ${LARGE}: it did not wait for it`,
  );
  t.equal(push.deliveredTo(one?.id ?? '').length, 1);
  t.equal((await harness.finished(large, big.id, 120_000)).sent, LARGE, 'the large send completes all the same');
}

t.test('on Redis queues, a small send goes ahead of a large send’s remaining chunks', (t) => scenario(t, {}));
t.test('on PostgreSQL queues too', (t) => scenario(t, { QUEUE_BACKEND: 'postgres' }));
