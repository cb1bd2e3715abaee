import { endProcessIfHeldOpen, startRedisCluster } from '@webpush/testing';
import t from 'tap';
import { harnessOnCluster, IN_FLIGHT_BOUND, startReadyWorker } from './cluster-helper.js';

// A master of a real Redis Cluster (3 masters, 3 replicas, started here on free ports, 2 s node
// timeout) is killed in the middle of a fan-out.
const cluster = await startRedisCluster({ nodeTimeoutMs: 2_000 });
t.teardown(async () => {
  await cluster.close();
  endProcessIfHeldOpen();
});

t.test('a master fails in the middle of a fan-out: nothing accepted is lost', async (t) => {
  const harness = await harnessOnCluster(t, cluster);
  const { push, config } = harness;
  const SUBSCRIBERS = 2_000;
  const owner = await harness.owner();
  const subscriptions = await harness.insertSubscriptions(owner, SUBSCRIBERS);
  // 30 ms an answer keeps the fan-out going for a few seconds.
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201, delayMs: 30, times: Infinity });
  await startReadyWorker(harness);

  // Every key of the queues hashes to the tag `{prefix}`: kill the master that serves it.
  const queueTag = `{${config.redisKeyPrefix}}`;
  const { id, targets } = await harness.notify(owner, { title: 'Failover', body: 'Still arrives' });
  t.equal(targets, SUBSCRIBERS);
  await push.waitForMessages(300, 30_000);
  const atKill = push.received.length;
  const killedAt = Date.now();
  const { killed, promoted } = await cluster.killMasterOf(queueTag);
  t.comment(
    `master :${killed.port} killed after ${atKill} pushes; replica :${promoted.port} serves the queues ${Date.now() - killedAt} ms later (${push.received.length} pushes by then)`,
  );
  t.ok(atKill < SUBSCRIBERS, `killed while the fan-out was under way (${atKill} of ${SUBSCRIBERS} out)`);

  // Accepted during the failover's aftermath, too.
  const second = await harness.notify(owner, { title: 'After', body: 'The failover' });
  const done = await harness.finished(owner, id, 45_000);
  t.comment(`completed ${((Date.parse(done.completedAt ?? '') - killedAt) / 1000).toFixed(1)} s after the kill`);
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS, failed: 0, expired: 0 });
  const after = await harness.finished(owner, second.id, 45_000);
  t.match(after, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS });

  const first = new Map<string, number>();
  for (const message of push.received) {
    const payload = JSON.parse(message.payload) as { id: string };
    if (payload.id === id && message.status === 201)
      first.set(message.subscriptionId, (first.get(message.subscriptionId) ?? 0) + 1);
  }
  t.equal(first.size, SUBSCRIBERS, 'every target got the first notification');
  const twice = [...first.values()].filter((count) => count > 1).length;
  t.ok(twice <= IN_FLIGHT_BOUND, `${twice} pushes went out twice (≤ ${IN_FLIGHT_BOUND})`);
  t.strictSame(push.protocolErrors, []);
});
