import { deleteRedisKeys, testRedisUrl, waitFor } from '@webpush/testing';
import { Redis } from 'ioredis';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// This file's Redis lives in a database of its own (REDIS_URL names it), so "Redis lost its data"
// can be played for real. Only this file's keys are deleted, never the database or the server: other
// test runs may share both, and every key the service writes carries the file's prefix anyway.
const REDIS_DB = 11;
const redisUrl = new URL(testRedisUrl());
redisUrl.pathname = `/${REDIS_DB}`;

const harness = await deliveryHarness(t, {
  REDIS_URL: redisUrl.toString(),
  DELIVERY_CHUNK_SIZE: '50',
  WORKER_DELIVERY_CONCURRENCY: '2',
  PUSH_CONCURRENCY: '5',
  RECONCILE_INTERVAL_MS: '250',
  RECONCILE_STALE_MS: '1000',
});
const { app, config, push } = harness;
t.teardown(() => deleteRedisKeys(redisUrl.toString(), config.redisKeyPrefix));
const worker = await harness.startInProcessWorker();

async function keysOf(url: string): Promise<string[]> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return await redis.keys(`*${config.redisKeyPrefix}*`);
  } finally {
    redis.disconnect();
  }
}

t.test('Redis loses its data mid fan-out: the reconciler completes the notification', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.insertSubscriptions(owner, 1_000);
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201, delayMs: 15, times: Infinity });
  const before = push.received.length;
  const { id, targets } = await harness.notify(owner, { title: 'Survives', body: 'a flush' });
  t.equal(targets, 1_000);

  await push.waitForMessages(before + 200);
  // Delivery of the first chunk starts while the fan-out still plans the rest: let the fan-out job
  // finish first, so that no job of this worker is between Redis calls when the data goes.
  await waitFor(async () => {
    const [row] = await harness.database.sql`select fanned_out_at from notifications where id = ${id}`;
    return row?.fanned_out_at !== null;
  }, 'the fan-out has planned every chunk');
  const keys = await keysOf(redisUrl.toString());
  t.ok(
    keys.some((key) => key.includes(':deliveries:')),
    'the queues live in the database REDIS_URL names',
  );
  t.strictSame(await keysOf(testRedisUrl()), [], 'and nowhere else');
  await deleteRedisKeys(redisUrl.toString(), config.redisKeyPrefix);
  const flushedAt = Date.now();
  // A job in flight may renew its lock (or the stalled check its marker) right after the flush,
  // BullMQ writes a queue's `meta` hash (its version and settings) again the moment the worker's
  // next call reaches it, and the API's periodic engagement flush takes its `flush-lock` whenever its
  // timer fires. The deletion is a SCAN and several DELs, not one FLUSHDB (other test files share
  // this Redis): a stalled check that runs between two DELs copies the ids of the `active` list,
  // not yet deleted, into the `stalled` set already deleted (seen in CI). That set holds only ids
  // of jobs that are gone, which the next check drops. What matters is that no job, list or data
  // is left.
  const left = (await keysOf(redisUrl.toString())).filter(
    (key) => !/([:-]lock|:stalled-check|:stalled|:meta)$/.test(key),
  );
  t.strictSame(left, [], 'every job and queue key of the service is gone');
  t.ok(push.received.length - before < 1_000, 'flushed while the send was under way');

  const done = await harness.finished(owner, id, 30_000);
  t.comment(`completed ${((Date.parse(done.completedAt ?? '') - flushedAt) / 1000).toFixed(1)} s after the flush`);
  t.match(done, { status: 'completed', targets: 1_000, sent: 1_000, failed: 0, expired: 0 });
  const delivered = new Set(
    push.received
      .slice(before)
      .filter((m) => m.status === 201)
      .map((m) => m.subscriptionId),
  );
  t.equal(delivered.size, 1_000, 'every target got it');
  t.match(await worker.metrics.metrics(), /webpush_notifications_requeued_total [1-9]/);
});

t.test('accepted while the queue could not be reached: the reconciler queues it', async (t) => {
  const owner = await harness.owner();
  const [subscriber] = await harness.subscribe(owner, 1);
  if (!subscriber) throw new Error('subscription missing');
  const add = app.queues.fanOut.add.bind(app.queues.fanOut);
  app.queues.fanOut.add = async () => {
    throw new Error('redis is down');
  };
  let id: string;
  try {
    ({ id } = await harness.notify(owner, { title: 'Late', body: 'but sure' }));
  } finally {
    app.queues.fanOut.add = add;
  }
  t.equal(await app.queues.fanOut.getJobState(id), 'unknown', 'nothing was queued');
  t.match(await harness.finished(owner, id, 10_000), { status: 'completed', sent: 1 });
  t.equal(push.deliveredTo(subscriber.id).length, 1);
});

t.test('a finished notification is left alone, and a pass with nothing stalled queues nothing', async (t) => {
  // Everything above must be "stale" by age (RECONCILE_STALE_MS), by PostgreSQL's clock.
  const sql = harness.database.sql;
  const allStale = async () => {
    const [row] = await sql<{ fresh: number }[]>`
      select count(*)::int as fresh from notifications where updated_at >= now() - interval '1 second'`;
    return row?.fresh === 0;
  };
  await waitFor(allStale, 'every notification is older than RECONCILE_STALE_MS');
  const received = push.received.length;
  t.equal(await worker.reconciler.runOnce(), 0);
  t.equal(push.received.length, received);
});
