import { defaultProgressBatch, unrecordedBound } from '@webpush/config';
import { runMigrations } from '@webpush/db/migrate';
import { type FakePushService, startDedicatedPostgres, startDedicatedRedis } from '@webpush/testing';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { deliveryHarness } from './helper.js';

// Restarts lose nothing: Redis or PostgreSQL goes away in the middle of a fan-out and comes back.
// Each test has servers of its own (the suite's shared ones are never restarted).
const SUBSCRIBERS = 3_000;
const CHUNK_SIZE = 100;
const CHUNK_CONCURRENCY = 4;
const PUSH_CONCURRENCY = 10;
const PROGRESS_BATCH = defaultProgressBatch(CHUNK_CONCURRENCY, PUSH_CONCURRENCY);
/** Redis going away stops no write to PostgreSQL: only what a crash could leave unrecorded repeats. */
const REDIS_BOUND = unrecordedBound({
  chunkConcurrency: CHUNK_CONCURRENCY,
  pushConcurrency: PUSH_CONCURRENCY,
  progressBatch: PROGRESS_BATCH,
});
/**
 * PostgreSQL going away fails writes, which are tried again with the answers the worker already has
 * (database-outage.ts) instead of failing the chunks: nothing answered is dropped, and none repeated
 * in five runs. The bound asserted is the crash bound (158 here), not 0: a job lock that expires
 * while the event loop stalls on a loaded machine lets another worker re-send a chunk's unwritten
 * answers, as after a crash. That writes are retried rather than re-sent is proven exactly by
 * delivery/database-outage.test.ts.
 */
const POSTGRES_BOUND = REDIS_BOUND;
const DELIVERY = {
  DELIVERY_CHUNK_SIZE: String(CHUNK_SIZE),
  WORKER_DELIVERY_CONCURRENCY: String(CHUNK_CONCURRENCY),
  PUSH_CONCURRENCY: String(PUSH_CONCURRENCY),
  RECONCILE_INTERVAL_MS: '500',
  RECONCILE_STALE_MS: '2000',
};

/** Every target got the push at least once, none three times, and the repeats within the in-flight bound. */
function assertDelivered(t: Test, push: FakePushService, what: string, bound: number) {
  const arrivals = new Map<string, number>();
  for (const message of push.received.filter((m) => m.status === 201)) {
    arrivals.set(message.subscriptionId, (arrivals.get(message.subscriptionId) ?? 0) + 1);
  }
  t.equal(arrivals.size, SUBSCRIBERS, `${what}: every target got the push`);
  const repeats = [...arrivals.values()].filter((count) => count > 1);
  t.notOk(
    repeats.some((count) => count > 2),
    `${what}: no push arrived three times`,
  );
  t.ok(repeats.length <= bound, `${what}: ${repeats.length} arrived twice, ≤ ${bound}`);
  t.strictSame(push.protocolErrors, []);
}

t.test('Redis restarted empty in the middle of a fan-out: the send completes from PostgreSQL', async (t) => {
  const redis = await startDedicatedRedis();
  t.teardown(() => redis.close());
  const harness = await deliveryHarness(t, { ...DELIVERY, REDIS_URL: redis.url });
  const { push } = harness;
  const owner = await harness.owner();
  const subscriptions = await harness.insertSubscriptions(owner, SUBSCRIBERS);
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201, delayMs: 15, times: Infinity });
  await harness.startInProcessWorker();

  const { id } = await harness.notify(owner, { title: 'Redis', body: 'Gone and back' });
  await push.waitForMessages(600, 30_000);
  const restartedAt = Date.now();
  await redis.restart();
  t.ok(push.received.length < SUBSCRIBERS, `restarted mid-way: ${push.received.length} of ${SUBSCRIBERS} out`);

  const done = await harness.finished(owner, id, 60_000);
  t.comment(`completed ${((Date.parse(done.completedAt ?? '') - restartedAt) / 1000).toFixed(1)} s after the restart`);
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS, failed: 0, expired: 0 });
  assertDelivered(t, push, 'after the Redis restart', REDIS_BOUND);

  // And the next send goes through the restarted Redis as usual.
  const next = await harness.notify(owner, { title: 'After', body: 'Business as usual' });
  t.match(await harness.finished(owner, next.id, 60_000), { status: 'completed', sent: SUBSCRIBERS });
});

t.test(
  'PostgreSQL restarted in the middle of a fan-out: the sums are right and nothing delivered is sent again',
  async (t) => {
    const server = await startDedicatedPostgres();
    t.teardown(() => server.close());
    const admin = postgres(server.url(), { max: 1, onnotice: () => {} });
    await admin`create database webpush`;
    await admin.end();
    const databaseUrl = server.url('webpush');
    await runMigrations(databaseUrl);
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
    t.teardown(() => sql.end({ timeout: 1 }));

    const harness = await deliveryHarness(t, { ...DELIVERY, DATABASE_URL: databaseUrl });
    const { push } = harness;
    const owner = await harness.owner();
    // The harness's own database handle is the suite's: this test's rows live on its own server.
    await sql`update users set plan = 'enterprise' where id = ${owner.user.user.id}`;
    const subscriptions = Array.from({ length: SUBSCRIBERS }, () => push.subscribe());
    const rows = subscriptions.map((s) => ({
      app_id: owner.app.id,
      endpoint: s.endpoint,
      p256dh: s.p256dh,
      auth: s.auth,
    }));
    for (let start = 0; start < rows.length; start += 1_000) {
      await sql`insert into subscriptions ${sql(rows.slice(start, start + 1_000), 'app_id', 'endpoint', 'p256dh', 'auth')}`;
    }
    for (const subscription of subscriptions)
      push.script(subscription.id, { status: 201, delayMs: 15, times: Infinity });
    await harness.startInProcessWorker();

    const { id } = await harness.notify(owner, { title: 'PostgreSQL', body: 'Gone and back' });
    await push.waitForMessages(600, 30_000);
    const restartedAt = Date.now();
    await server.restart();
    t.ok(push.received.length < SUBSCRIBERS, `restarted mid-way: ${push.received.length} of ${SUBSCRIBERS} out`);

    const done = await harness.finished(owner, id, 90_000);
    t.comment(
      `completed ${((Date.parse(done.completedAt ?? '') - restartedAt) / 1000).toFixed(1)} s after the restart`,
    );
    t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS, failed: 0, expired: 0 });
    t.equal(done.sent + done.failed + done.expired, done.targets, 'the sums are right');
    assertDelivered(t, push, 'after the PostgreSQL restart', POSTGRES_BOUND);
  },
);
