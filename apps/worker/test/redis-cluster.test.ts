import { isCluster } from '@webpush/queue';
import { bearer, endProcessIfHeldOpen, startRedisCluster } from '@webpush/testing';
import t from 'tap';
import { assertEveryoneOnce, browserKey, harnessOnCluster, startReadyWorker } from './cluster-helper.js';

// The API and a worker on a real Redis Cluster (3 masters, 3 replicas, started here on free
// ports). REDIS_URL points at a port nothing listens on: with REDIS_CLUSTER_NODES set it is unused.
const cluster = await startRedisCluster({ nodeTimeoutMs: 2_000 });
t.teardown(async () => {
  await cluster.close();
  endProcessIfHeldOpen();
});

t.test('accept → fan-out → pushes → engagement flush, all on the cluster', async (t) => {
  const harness = await harnessOnCluster(t, cluster);
  const { app, push } = harness;
  t.ok(isCluster(app.redis), 'the API uses a cluster client');
  const worker = await startReadyWorker(harness);

  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 5);
  await harness.insertSubscriptions(owner, 245);
  const { id, targets } = await harness.notify(owner, { title: 'Cluster', body: 'Hello from every slot' });
  t.equal(targets, 250);
  const done = await harness.finished(owner, id, 30_000);
  t.match(done, { status: 'completed', targets: 250, sent: 250, failed: 0, expired: 0 });
  assertEveryoneOnce(t, push, 250, 'send');
  const first = subscriptions[0];
  if (!first) throw new Error('no subscription');
  const [message] = push.deliveredTo(first.id);
  t.match(JSON.parse(message?.payload ?? '{}'), { title: 'Cluster', body: 'Hello from every slot', id });

  // Browsers report the pushes they showed and clicked; the API buffers them in the cluster and a
  // flush counts them.
  const browser = await browserKey(harness, owner);
  for (const subscription of subscriptions) {
    for (const type of ['shown', 'clicked']) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/events',
        headers: bearer(browser),
        payload: { notificationId: id, endpoint: subscription.endpoint, type },
      });
      t.equal(response.statusCode, 202);
    }
  }
  t.equal((await app.engagement.flush()).counted, 10, 'five shown and five clicked counted');
  const counted = await harness.status(owner, id);
  t.match(counted, { shown: 5, clicked: 5 });

  const metrics = await worker.metrics.metrics();
  t.match(metrics, /webpush_queue_jobs\{queue="deliveries",state="waiting"\} 0/, 'the worker reads queue depths');
});

t.test('the cluster loses its data mid fan-out: PostgreSQL has the work and it is queued again', async (t) => {
  const harness = await harnessOnCluster(t, cluster);
  const { push } = harness;
  const SUBSCRIBERS = 2_000;
  const owner = await harness.owner();
  const subscriptions = await harness.insertSubscriptions(owner, SUBSCRIBERS);
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201, delayMs: 20, times: Infinity });
  await startReadyWorker(harness);

  const { id } = await harness.notify(owner, { title: 'Flushed', body: 'Queued again' });
  await push.waitForMessages(300, 30_000);
  const flushedAt = Date.now();
  await cluster.flushAll();
  const done = await harness.finished(owner, id, 45_000);
  t.comment(
    `completed ${((Date.parse(done.completedAt ?? '') - flushedAt) / 1000).toFixed(1)} s after FLUSHALL on every master`,
  );
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS, failed: 0, expired: 0 });
  assertEveryoneOnce(t, push, SUBSCRIBERS, 'after the data loss');
});
