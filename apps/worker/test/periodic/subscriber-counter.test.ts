import { Writable } from 'node:stream';
import { createPushSender } from '@webpush/push';
import { appSubscriberCounted, bearer, subscriberCounted } from '@webpush/testing';
import { pino } from 'pino';
import t from 'tap';
import { startWorker } from '../../src/worker.js';
import { deliveryHarness } from '../helper.js';

// The worker's side of the per-owner subscriber counter: a 404/410 from the push service expires the
// subscription and gives its slot back in the same transaction; the periodic drift check repairs a
// counter that disagrees with a real count and says so in the log.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '2' });
const { app, config, push } = harness;
const sql = harness.database.sql;

const logLines: Record<string, unknown>[] = [];
const worker = await startWorker(config, {
  sender: createPushSender({ allowlist: config.pushServiceHosts, ca: push.caPem, timeoutMs: 5_000 }),
  log: pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  ),
});
t.teardown(() => worker.close());

const counted = (ownerId: string) => subscriberCounted(sql, ownerId);

t.test('a 410 expires the subscription and frees its slot; re-subscribing takes it again', async (t) => {
  const owner = await harness.owner();
  const ownerId = owner.user.user.id;
  const [gone, missing, fine] = await harness.subscribe(owner, 3);
  if (!gone || !missing || !fine) throw new Error('subscriptions missing');
  t.strictSame(await counted(ownerId), { counter: 3, real: 3 });
  push.script(gone.id, { status: 410 });
  push.script(missing.id, { status: 404 });

  const { id } = await harness.notify(owner, { title: 'Still there?', body: '?' });
  t.match(await harness.finished(owner, id), { status: 'completed', targets: 3, sent: 1, expired: 2 });
  t.strictSame(await counted(ownerId), { counter: 1, real: 1 }, 'two expired by the worker');
  t.strictSame(await appSubscriberCounted(sql, owner.app.id), { counter: 1, real: 1 }, "the app's count too");

  const again = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: gone.endpoint, p256dh: gone.p256dh, auth: gone.auth },
  });
  t.equal(again.statusCode, 200);
  t.strictSame(await counted(ownerId), { counter: 2, real: 2 }, 're-activated');
  t.strictSame(await appSubscriberCounted(sql, owner.app.id), { counter: 2, real: 2 });
});

t.test('the drift check repairs a corrupted counter and logs it', async (t) => {
  const owner = await harness.owner();
  const ownerId = owner.user.user.id;
  await harness.subscribe(owner, 2);
  const healthy = await harness.owner();
  await harness.subscribe(healthy, 1);
  await sql`select set_subscriber_count(${ownerId}, 7)`;

  const repaired = await worker.subscriberCountCheck.runOnce();
  t.strictSame(repaired, [{ ownerId, counter: 7, real: 2 }], 'only the corrupted owner');
  t.strictSame(await counted(ownerId), { counter: 2, real: 2 });
  t.strictSame(await counted(healthy.user.user.id), { counter: 1, real: 1 }, 'the other owner is untouched');
  const warning = logLines.find((line) => line.ownerId === ownerId);
  t.match(warning, { level: 40, ownerId, counter: 7, real: 2 }, 'a warning names the owner, the counter and the count');
  t.strictSame(await worker.subscriberCountCheck.runOnce(), [], 'nothing left to repair');
});
