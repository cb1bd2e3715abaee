import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { buildApp } from '@webpush/api/app';
import { loadConfig } from '@webpush/config';
import { setUserPlan } from '@webpush/db';
import { type BenchDatabase, seedSubscriptions, seedTenant } from './bench-database.js';
import { jsonLine, spawnSource, stopChild } from './child.js';
import type { HttpLoad, HttpLoadResult } from './http-load.js';
import type { PooledKey } from './key-pool.js';
import { median } from './stats.js';

/** POST /subscribe rates (new endpoints, 32 connections) at an owner without subscribers and at a large one. */
export interface SubscribeFigures {
  concurrency: number;
  /** Active subscriptions the large owner had before its first round. */
  largeOwnerSubscriptions: number;
  emptyPerSec: number;
  largePerSec: number;
  emptyRounds: number[];
  largeRounds: number[];
}

export interface SubscribeBenchOptions {
  /** The bench's service environment (database, Redis prefix, secrets, PUSH_SERVICE_HOSTS). */
  serviceEnv: Record<string, string>;
  /** An allow-listed push origin for the endpoints (never contacted: subscribing sends nothing). */
  origin: string;
  pool: readonly PooledKey[];
  largeOwnerSubscriptions: number;
  concurrency: number;
  seconds: number;
  runs: number;
  say: (text: string) => void;
}

async function subscribeRate(load: HttpLoad): Promise<number> {
  const child = spawnSource('http-load.ts', [JSON.stringify(load)]);
  if (!child.stdout) throw new Error('subscribe load did not start');
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const timer = setTimeout(() => void stopChild(child, 'SIGKILL'), (load.seconds + 31) * 1000);
  let result: HttpLoadResult | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    const value = jsonLine(line);
    if (typeof value?.requests === 'number') result = value as unknown as HttpLoadResult;
  }
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0 || !result) throw new Error(`subscribe load: exit code ${code}, no result`);
  const unexpected = Object.keys(result.statuses).filter((status) => status !== '201');
  if (result.errors > 0 || unexpected.length > 0 || result.requests === 0) {
    throw new Error(
      `subscribe load: ${result.requests} answered, statuses ${JSON.stringify(result.statuses)}, ` +
        `${result.errors} errors${result.firstError ? ` (${result.firstError})` : ''}`,
    );
  }
  return result.requests / result.seconds;
}

/**
 * POST /subscribe with a new endpoint (and a real P-256 key from the pool) per request, 32
 * keep-alive connections, through an API in this process (as POST /notify is measured): rounds
 * alternate between an owner on the Pro plan without subscribers and an owner with
 * `largeOwnerSubscriptions` active ones (seeded by generate_series, its counter set as migration
 * 0010's backfill does; Enterprise, so the seeded count cannot run into a plan limit: the subscribe
 * statement is the same, the conditional increment only compares with no limit). The per-app cap on
 * new subscriptions is raised out of the way; its Redis call stays on the path.
 */
export async function measureSubscribe(database: BenchDatabase, options: SubscribeBenchOptions) {
  const env = { ...options.serviceEnv, RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: '1000000000' };
  const config = loadConfig(env);
  if (!config.encryptionKey || !config.apiKeyPepper) throw new Error('bench secrets did not load');
  const secrets = { encryptionKey: config.encryptionKey, apiKeyPepper: config.apiKeyPepper };
  const { db, sql } = database.handle;

  const empty = await seedTenant(database, secrets);
  const [emptyOwner] = await sql<{ email: string }[]>`select email from users where id = ${empty.userId}`;
  if (!emptyOwner) throw new Error('the empty owner vanished');
  await setUserPlan(db, emptyOwner.email, 'pro');

  const large = await seedTenant(database, secrets);
  const seeded = performance.now();
  await seedSubscriptions(database, large.app.id, options.largeOwnerSubscriptions, options.origin, options.pool);
  await sql`insert into subscriber_counters (user_id, active) values (${large.userId}, ${options.largeOwnerSubscriptions})
    on conflict (user_id) do update set active = excluded.active`;
  options.say(
    `subscribe: large owner seeded with ${options.largeOwnerSubscriptions.toLocaleString('en-US')} subscriptions ` +
      `in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
  );

  const api = await buildApp(config, { logger: { level: 'warn' } });
  try {
    const url = `${await api.listen({ port: 0, host: '127.0.0.1' })}/api/v1/subscribe`;
    const keys = options.pool.slice(0, 200).map(({ p256dh, auth }) => ({ p256dh, auth }));
    const run = randomBytes(4).toString('hex');
    const emptyRounds: number[] = [];
    const largeRounds: number[] = [];
    for (let index = 0; index < options.runs; index++) {
      for (const [label, tenant, rounds] of [
        ['empty', empty, emptyRounds],
        ['large', large, largeRounds],
      ] as const) {
        rounds.push(
          await subscribeRate({
            url,
            headers: { authorization: `Bearer ${tenant.app.secret}` },
            body: '',
            subscriptions: { endpointPrefix: `${options.origin}/push/sub-${run}-${label}-${index}-`, keys },
            concurrency: options.concurrency,
            seconds: options.seconds,
          }),
        );
      }
    }
    const rates = (rounds: number[]) => rounds.map((rate) => Math.round(rate).toLocaleString('en-US')).join(', ');
    options.say(
      `POST /subscribe: ${rates(emptyRounds)} req/s (empty owner); ${rates(largeRounds)} req/s (large owner)`,
    );
    return {
      concurrency: options.concurrency,
      largeOwnerSubscriptions: options.largeOwnerSubscriptions,
      emptyPerSec: median(emptyRounds),
      largePerSec: median(largeRounds),
      emptyRounds,
      largeRounds,
    } satisfies SubscribeFigures;
  } finally {
    await api.close();
  }
}
