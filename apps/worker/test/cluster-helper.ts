import { defaultProgressBatch, unrecordedBound } from '@webpush/config';
import { createKey, type FakePushService, type ReceivedPush, type RedisCluster, waitFor } from '@webpush/testing';
import type { Test } from 'tap';
import { type DeliveryHarness, deliveryHarness, type Owner } from './helper.js';

/** Settings and checks shared by the Redis Cluster tests of the worker. */

export const CHUNK_SIZE = 100;
export const CHUNK_CONCURRENCY = 4;
export const PUSH_CONCURRENCY = 10;
/** What may go out twice when work is taken over: the pushes in flight and two progress batches. */
export const IN_FLIGHT_BOUND = unrecordedBound({
  chunkConcurrency: CHUNK_CONCURRENCY,
  pushConcurrency: PUSH_CONCURRENCY,
  progressBatch: defaultProgressBatch(CHUNK_CONCURRENCY, PUSH_CONCURRENCY),
});

/** The API and the stand-in push service on `cluster` (REDIS_URL unreachable: it must not be used). */
export async function harnessOnCluster(t: Test, cluster: RedisCluster): Promise<DeliveryHarness> {
  return deliveryHarness(t, {
    REDIS_CLUSTER_NODES: cluster.seeds,
    REDIS_URL: 'redis://127.0.0.1:1',
    DELIVERY_CHUNK_SIZE: String(CHUNK_SIZE),
    WORKER_DELIVERY_CONCURRENCY: String(CHUNK_CONCURRENCY),
    PUSH_CONCURRENCY: String(PUSH_CONCURRENCY),
    EVENTS_FLUSH_INTERVAL_MS: '600000',
    // The reconciler finds lost work quickly, so a test of Redis data loss takes seconds.
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_STALE_MS: '2000',
  });
}

/** Every target got the message at least once; no one got it three times; duplicates stay in bound. */
export function assertEveryoneOnce(t: Test, push: FakePushService, targets: number, label: string) {
  const arrivals = new Map<string, number>();
  for (const message of push.received as ReceivedPush[])
    if (message.status === 201) arrivals.set(message.subscriptionId, (arrivals.get(message.subscriptionId) ?? 0) + 1);
  t.equal(arrivals.size, targets, `${label}: every target got the message`);
  const twice = [...arrivals.values()].filter((count) => count > 1).length;
  t.ok(![...arrivals.values()].some((count) => count > 2), `${label}: no push arrived three times`);
  t.ok(twice <= IN_FLIGHT_BOUND, `${label}: ${twice} arrived twice (≤ ${IN_FLIGHT_BOUND}, the in-flight bound)`);
  t.strictSame(push.protocolErrors, [], `${label}: every push verified and decrypted`);
  return twice;
}

/** A worker in this process, once it reports PostgreSQL and the cluster ready (polled: a loaded machine is slow). */
export async function startReadyWorker(harness: DeliveryHarness) {
  const worker = await harness.startInProcessWorker();
  await waitFor(
    () =>
      worker.ready().then(
        () => true,
        () => false,
      ),
    'the worker reports PostgreSQL and the cluster ready',
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return worker;
}

/** A subscribe_only key of the owner's app, as a page's browser uses it. */
export async function browserKey(harness: DeliveryHarness, owner: Owner) {
  return (await createKey(harness.app, owner.user.token, owner.app.id, 'subscribe_only')).secret;
}
