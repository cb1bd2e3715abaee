import { randomUUID } from 'node:crypto';
import { closeRedisConnection, createRedisConnection } from '@webpush/queue';
import { endProcessIfHeldOpen, startRedisCluster, waitFor } from '@webpush/testing';
import t from 'tap';
import { redisAppSlots } from '../../src/webhooks/app-slots.js';
import { createWebhookFairness, type SlotDecision } from '../../src/webhooks/fairness.js';

// The shared webhook slots on a real Redis Cluster: each app's key lives in a slot of its own, and
// the script that takes a slot touches that key only, so nothing answers CROSSSLOT.
const cluster = await startRedisCluster({ replicasPerMaster: 0 });
t.teardown(async () => {
  await cluster.close();
  endProcessIfHeldOpen();
});

const LIMIT = 2;
const URL = 'https://receiver.example/hook';
const KEY_PREFIX = `test:${randomUUID()}`;
const warnings: unknown[] = [];

/** One worker process: a cluster client of its own and its own fairness. */
function worker() {
  const redis = createRedisConnection({ redisUrl: 'redis://127.0.0.1:1', redisClusterNodes: cluster.nodes }, 'worker');
  t.teardown(() => closeRedisConnection(redis));
  return createWebhookFairness({
    perAppConcurrency: LIMIT,
    breakerFailures: 3,
    breakerPauseMs: 1_000,
    attemptTimeoutMs: 10_000,
    slots: redisAppSlots(redis, KEY_PREFIX, 60_000),
    log: { warn: (...args: unknown[]) => warnings.push(args), info: () => {} },
  });
}

t.test("apps spread over the cluster's slots each have at most their slots across two workers", async (t) => {
  const first = worker();
  const second = worker();
  const apps = Array.from({ length: 6 }, () => randomUUID());
  for (const app of apps) {
    const decisions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? first : second).acquire(app, URL)),
    );
    t.equal(decisions.filter((decision) => decision.ok).length, LIMIT, `app ${app}: its slots, no more`);
    const held = decisions.find((decision): decision is Extract<SlotDecision, { ok: true }> => decision.ok);
    held?.release({ ok: true, durationMs: 10 });
    await waitFor(async () => (await second.acquire(app, URL)).ok, 'a released slot is free for the other worker');
  }
  const masters = new Set<number>();
  for (const app of apps) masters.add((await cluster.ownerOf(`${KEY_PREFIX}:webhook-slots:${app}`)).master.port);
  t.ok(masters.size > 1, 'the apps’ keys live on more than one master');
  t.equal(warnings.length, 0, 'the count was reachable all along (no CROSSSLOT, no fallback)');
});
