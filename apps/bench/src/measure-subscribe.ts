import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { buildApp } from '@webpush/api/app';
import { loadConfig } from '@webpush/config';
import { setUserPlan } from '@webpush/db';
import { type BenchDatabase, seedSubscriptions, seedTenant } from './bench-database.js';
import type { PooledKey } from './key-pool.js';
import { measureRequestRate, type RequestRate } from './measure-http.js';
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
  /**
   * CPU µs a subscribe costs, medians over every round: the API (this process), the load generator,
   * and the rest of the machine (PostgreSQL and Redis), with the rate those add up to on this
   * machine's cores if nothing else ran: the ceiling the target has to fit under.
   */
  cpu: { apiMicros: number; loadMicros: number; restMicros: number; totalMicros: number; ceilingPerSec: number };
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
  const cpus = availableParallelism();
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
  await sql`select set_subscriber_count(${large.userId}, ${options.largeOwnerSubscriptions})`;
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
    const measured: RequestRate[] = [];
    for (let index = 0; index < options.runs; index++) {
      for (const [label, tenant, rounds] of [
        ['empty', empty, emptyRounds],
        ['large', large, largeRounds],
      ] as const) {
        const rate = await measureRequestRate(
          {
            url,
            headers: { authorization: `Bearer ${tenant.app.secret}` },
            body: '',
            subscriptions: { endpointPrefix: `${options.origin}/push/sub-${run}-${label}-${index}-`, keys },
            concurrency: options.concurrency,
            seconds: options.seconds,
          },
          201,
        );
        rounds.push(rate.perSecond);
        measured.push(rate);
      }
    }
    const perRequest = (cores: (rate: RequestRate) => number) =>
      Math.round(median(measured.map((rate) => (cores(rate) * 1e6) / rate.perSecond)));
    const apiMicros = perRequest((rate) => rate.cpu.bench);
    const loadMicros = perRequest((rate) => rate.cpu.cores.load);
    const restMicros = perRequest((rate) => rate.cpu.rest);
    const totalMicros = apiMicros + loadMicros + restMicros;
    const cpu = {
      apiMicros,
      loadMicros,
      restMicros,
      totalMicros,
      ceilingPerSec: Math.round((cpus * 1e6) / totalMicros),
    };
    const rates = (rounds: number[]) => rounds.map((rate) => Math.round(rate).toLocaleString('en-US')).join(', ');
    options.say(
      `POST /subscribe: ${rates(emptyRounds)} req/s (empty owner); ${rates(largeRounds)} req/s (large owner); ` +
        `CPU a request: API ${apiMicros} µs, load generator ${loadMicros} µs, PostgreSQL + Redis ${restMicros} µs`,
    );
    return {
      concurrency: options.concurrency,
      largeOwnerSubscriptions: options.largeOwnerSubscriptions,
      emptyPerSec: median(emptyRounds),
      largePerSec: median(largeRounds),
      emptyRounds,
      largeRounds,
      cpu,
    } satisfies SubscribeFigures;
  } finally {
    await api.close();
  }
}

const TARGET_PER_SEC = 2_000;
/** "Flat": the large owner's rate within 10 % of the empty owner's. */
const FLAT_WITHIN = 0.9;

/**
 * The report's verdict lines: the target, and where the CPU of one subscribe went, which bounds the
 * rate on this machine whatever the target says (every process of the path shares its cores).
 */
export function subscribeVerdict(figures: SubscribeFigures | null): string[] {
  if (figures === null)
    return [`Target POST /subscribe ≥ ${TARGET_PER_SEC.toLocaleString('en-US')} /s, flat: –  not assessed`];
  const { emptyPerSec, largePerSec, cpu } = figures;
  const flat = largePerSec >= emptyPerSec * FLAT_WITHIN;
  const met = flat && Math.min(emptyPerSec, largePerSec) >= TARGET_PER_SEC;
  const rate = (value: number) => Math.round(value).toLocaleString('en-US');
  return [
    `Target POST /subscribe ≥ ${rate(TARGET_PER_SEC)} /s, flat 0 → ${rate(figures.largeOwnerSubscriptions)}: ` +
      `${rate(emptyPerSec)} → ${rate(largePerSec)} /s (${flat ? 'flat' : 'NOT flat'})  ${met ? 'MET' : 'NOT MET'}`,
    `  (CPU a subscribe: API ${cpu.apiMicros} µs + load generator ${cpu.loadMicros} µs + PostgreSQL and Redis ` +
      `${cpu.restMicros} µs = ${cpu.totalMicros} µs, so these cores allow at most ~${rate(cpu.ceilingPerSec)} /s)`,
  ];
}
