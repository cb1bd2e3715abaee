import { randomUUID } from 'node:crypto';
import { createDatabase } from '@webpush/db';
import { closeRedisConnection, createRedisConnection } from '@webpush/queue';
import { createIsolatedResources, unusedPort, waitFor } from '@webpush/testing';
import t from 'tap';
import { type AppSlots, postgresAppSlots, redisAppSlots } from '../../src/webhooks/app-slots.js';
import { createWebhookFairness, type SlotDecision } from '../../src/webhooks/fairness.js';

// Two fairness instances stand for two worker processes: they share nothing but the count, in
// Redis (queues in Redis) or in PostgreSQL (queues in PostgreSQL).
const resources = await createIsolatedResources();
t.teardown(() => resources.dispose());
const redis = createRedisConnection({ redisUrl: resources.redisUrl, redisClusterNodes: null }, 'worker');
t.teardown(() => closeRedisConnection(redis));
const database = createDatabase(resources.databaseUrl, { max: 4 });
t.teardown(() => database.close());

/** An app row: the PostgreSQL slots belong to their app (deleted with it). */
async function newApp(): Promise<string> {
  const [row] = await database.sql<{ id: string }[]>`
    with owner as (insert into users (email) values (${`${randomUUID()}@example.com`}) returning id)
    insert into apps (user_id, name, vapid_public_key, vapid_private_key_sealed)
    select id, 'slots', 'public', 'sealed' from owner returning id`;
  if (!row) throw new Error('no app');
  return row.id;
}

const LIMIT = 2;
const URL = 'https://receiver.example/hook';
const stores: Record<string, (leaseMs: number) => AppSlots> = {
  redis: (leaseMs) => redisAppSlots(redis, resources.redisKeyPrefix, leaseMs),
  postgres: (leaseMs) => postgresAppSlots(database.db, leaseMs),
};

function worker(slots: AppSlots, log?: { warn(...args: unknown[]): void; info(...args: unknown[]): void }) {
  return createWebhookFairness({
    perAppConcurrency: LIMIT,
    breakerFailures: 3,
    breakerPauseMs: 1_000,
    attemptTimeoutMs: 10_000,
    slots,
    ...(log ? { log } : {}),
  });
}

const taken = (decisions: SlotDecision[]) => decisions.filter((decision) => decision.ok);

for (const [backend, store] of Object.entries(stores)) {
  t.test(`${backend}: an app has at most its slots in flight across two workers`, async (t) => {
    const first = worker(store(60_000));
    const second = worker(store(60_000));
    const app = await newApp();
    // Both workers ask at once, more often than the app has slots.
    const decisions = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? first : second).acquire(app, URL)),
    );
    t.equal(taken(decisions).length, LIMIT, 'two workers together take the app’s slots, no more');
    const refused = decisions.find((decision) => !decision.ok);
    t.match(refused, { ok: false, reason: 'app_busy' });
    t.equal(first.inFlight(app) + second.inFlight(app), LIMIT);
    t.ok((await first.acquire(await newApp(), URL)).ok, 'another app is not affected');
    t.ok((await second.acquire(await newApp(), URL)).ok, 'nor in the other worker');
  });

  t.test(`${backend}: a slot released after an error is free for the other worker`, async (t) => {
    const first = worker(store(60_000));
    const second = worker(store(60_000));
    const app = await newApp();
    const held = [await first.acquire(app, URL), await first.acquire(app, URL)];
    t.equal(taken(held).length, LIMIT);
    t.match(await second.acquire(app, URL), { ok: false, reason: 'app_busy' }, 'the other worker waits');
    // The attempt threw before it was made: released without an outcome, twice (the second is a no-op).
    const [failed] = held;
    if (failed?.ok) {
      failed.release();
      failed.release();
    }
    let again: SlotDecision | null = null;
    await waitFor(async () => {
      again = await second.acquire(app, URL);
      return again.ok;
    }, 'the other worker takes the freed slot');
    t.match(await second.acquire(app, URL), { ok: false, reason: 'app_busy' }, 'exactly one slot was freed');
  });

  t.test(`${backend}: a slot whose holder died frees itself when its lease ends`, async (t) => {
    const LEASE_MS = 500;
    const crashed = worker(store(LEASE_MS));
    const survivor = worker(store(LEASE_MS));
    const app = await newApp();
    // Taken and never released: the process holding them is gone.
    t.equal(taken([await crashed.acquire(app, URL), await crashed.acquire(app, URL)]).length, LIMIT);
    const refused = await survivor.acquire(app, URL);
    t.match(refused, { ok: false, reason: 'app_busy' });
    await waitFor(async () => (await survivor.acquire(app, URL)).ok, 'the dead holder’s slots free themselves', {
      timeoutMs: 10_000,
    });
  });
}

t.test('a count that cannot be reached: each worker counts its own, and says so once', async (t) => {
  const down = createRedisConnection(
    { redisUrl: `redis://127.0.0.1:${await unusedPort()}`, redisClusterNodes: null },
    'worker',
  );
  down.on('error', () => {});
  t.teardown(() => down.disconnect());
  const warnings: unknown[] = [];
  const fairness = worker(redisAppSlots(down, resources.redisKeyPrefix, 60_000), {
    warn: (...args) => warnings.push(args),
    info: () => {},
  });
  const app = await newApp();
  const decisions = [
    await fairness.acquire(app, URL),
    await fairness.acquire(app, URL),
    await fairness.acquire(app, URL),
  ];
  t.strictSame(
    decisions.map((decision) => decision.ok),
    [true, true, false],
    'the deliveries go out within this worker’s own limit',
  );
  t.equal(warnings.length, 1, 'logged once, not per delivery');
});

t.test('postgres: the slots of a deleted app go with it', async (t) => {
  const fairness = worker(stores.postgres?.(60_000) as AppSlots);
  const app = await newApp();
  t.ok((await fairness.acquire(app, URL)).ok);
  const held = () => database.sql`select 1 from webhook_app_slots where app_id = ${app}`;
  t.equal((await held()).length, 1, 'held in PostgreSQL');
  await database.sql`delete from apps where id = ${app}`;
  t.equal((await held()).length, 0, 'nothing of the app is left');
});
