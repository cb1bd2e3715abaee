import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { buildApp } from '@webpush/api/app';
import { loadConfig } from '@webpush/config';
import { type BenchDatabase, seedSubscriptions, seedTenant } from './bench-database.js';
import { waitForQuietMachine } from './cpu-meter.js';
import type { PooledKey } from './key-pool.js';
import {
  measureBlocks,
  measureRequestRate,
  type RequestRate,
  startPlainFastify,
  startPlainServer,
} from './measure-http.js';
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
  /** The plain node:http server, same load, interleaved with the rounds above; its median. */
  plainPerSec: number;
  plainRounds: number[];
  /** Median of the per-round ratios (empty owner) ÷ plain node:http. */
  vsPlain: number;
  /** A plain Fastify route parsing the same bearer header, same bodies, interleaved: the target's baseline. */
  plainFastifyPerSec: number;
  plainFastifyRounds: number[];
  /** Median of the per-round ratios (empty owner) ÷ plain Fastify route: the target's figure. */
  vsPlainFastify: number;
  /**
   * One owner from 0 subscriptions up, new endpoints on 32 connections: the rate of each consecutive
   * block, with the per-app cap on new subscriptions off (the default) and on (set too high to refuse).
   */
  growth: { cap: 'off' | 'on'; blockSize: number; perSecond: number[] }[];
  /**
   * CPU µs a subscribe costs, medians over every round: the API (this process), the load generator,
   * and the rest of the machine (PostgreSQL and Redis), with the rate those add up to on this
   * machine's cores if nothing else ran: the ceiling the target has to fit under.
   */
  cpu: { apiMicros: number; loadMicros: number; restMicros: number; totalMicros: number; ceilingPerSec: number };
  /** How long the phase waited for a quiet machine after seeding, and the cores busy when it started. */
  quiet: { waitedMs: number; busyCores: number };
}

export interface SubscribeBenchOptions {
  /** The bench's service environment (database, Redis prefix, secrets, PUSH_SERVICE_HOSTS). */
  serviceEnv: Record<string, string>;
  /** An allow-listed push origin for the endpoints (never contacted: subscribing sends nothing). */
  origin: string;
  pool: readonly PooledKey[];
  largeOwnerSubscriptions: number;
  /** Subscriptions made in the growth measurement (0: skipped), timed per `GROWTH_BLOCK`. */
  growthTotal: number;
  concurrency: number;
  seconds: number;
  runs: number;
  say: (text: string) => void;
}

/**
 * POST /subscribe with a new endpoint (and a real P-256 key from the pool) per request, 32
 * keep-alive connections, through an API in this process (as POST /notify is measured): rounds
 * alternate between an owner on the Pro plan without subscribers (a new one each round) and an owner with
 * `largeOwnerSubscriptions` active ones (seeded by generate_series, its counter set as migration
 * 0010's backfill does; Enterprise, so the seeded count cannot run into a plan limit: the subscribe
 * statement is the same, the conditional increment only compares with no limit). The service's
 * default configuration: the per-app cap on new subscriptions is off (RATE_LIMIT_SUBSCRIBE_PER_APP_MAX
 * unset), so a new endpoint costs one statement and the API-key count its only Redis work. (With the
 * cap on, the subscribes that arrive together add one look-up statement, and each new endpoint a
 * Redis count; it is an opt-in setting, measured in the growth runs.)
 */
export async function measureSubscribe(database: BenchDatabase, options: SubscribeBenchOptions) {
  const cpus = availableParallelism();
  const env = { ...options.serviceEnv };
  delete env.RATE_LIMIT_SUBSCRIBE_PER_APP_MAX;
  const config = loadConfig(env);
  if (!config.encryptionKey || !config.apiKeyPepper) throw new Error('bench secrets did not load');
  const secrets = { encryptionKey: config.encryptionKey, apiKeyPepper: config.apiKeyPepper };
  const { sql } = database.handle;

  // An owner on the Pro plan without subscribers, new for each round: one owner for every round
  // would reach Pro's 100,000 active subscribers on a machine that subscribes faster than ~3,300/s.
  const emptyOwner = () => seedTenant(database, secrets, 'pro');
  const empty = await emptyOwner();

  const large = await seedTenant(database, secrets);
  const seeded = performance.now();
  await seedSubscriptions(database, large.app.id, options.largeOwnerSubscriptions, options.origin, options.pool);
  await sql`select set_subscriber_count(${large.userId}, ${options.largeOwnerSubscriptions})`;
  options.say(
    `subscribe: large owner seeded with ${options.largeOwnerSubscriptions.toLocaleString('en-US')} subscriptions ` +
      `in ${((performance.now() - seeded) / 1000).toFixed(1)} s`,
  );

  const growthOwners =
    options.growthTotal > 0
      ? [
          { cap: 'off' as const, tenant: await seedTenant(database, secrets) },
          { cap: 'on' as const, tenant: await seedTenant(database, secrets) },
        ]
      : [];
  // What ran before (the seed, the earlier phases' writes and checkpoints) can still be running: in a
  // full run the first round came out 30–40 % below the next two, the plain Fastify route's as the
  // API's, and no subscribe-only run showed it. The accept phase waits the same way.
  const quiet = await waitForQuietMachine();

  const api = await buildApp(config, { logger: { level: 'warn' } });
  const plain = await startPlainServer();
  const plainFastify = await startPlainFastify();
  try {
    const url = `${await api.listen({ port: 0, host: '127.0.0.1' })}/api/v1/subscribe`;
    const keys = options.pool.slice(0, 200).map(({ p256dh, auth }) => ({ p256dh, auth }));
    const run = randomBytes(4).toString('hex');
    const emptyRounds: number[] = [];
    const largeRounds: number[] = [];
    const plainRounds: number[] = [];
    const plainFastifyRounds: number[] = [];
    const measured: RequestRate[] = [];
    // One unmeasured second each first: the rounds compare warm code (JIT, the key cache, connections).
    for (const [label, target, status] of [
      ['plain', plain.url, 202],
      ['fastify', plainFastify.url, 202],
      ['warm', url, 201],
    ] as const) {
      await measureRequestRate(
        {
          url: target,
          headers: { authorization: `Bearer ${empty.app.secret}` },
          body: '',
          subscriptions: { endpointPrefix: `${options.origin}/push/${label}-${run}-warm-`, keys },
          concurrency: options.concurrency,
          seconds: 1,
        },
        status,
      );
    }
    for (let index = 0; index < options.runs; index++) {
      for (const [label, server, rounds] of [
        ['plain', plain, plainRounds],
        ['fastify', plainFastify, plainFastifyRounds],
      ] as const) {
        const plainRate = await measureRequestRate(
          {
            url: server.url,
            headers: { authorization: `Bearer ${empty.app.secret}` },
            body: '',
            subscriptions: { endpointPrefix: `${options.origin}/push/${label}-${run}-${index}-`, keys },
            concurrency: options.concurrency,
            seconds: options.seconds,
          },
          202,
        );
        rounds.push(plainRate.perSecond);
      }
      for (const [label, tenant, rounds] of [
        ['empty', await emptyOwner(), emptyRounds],
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
        `plain Fastify route ${rates(plainFastifyRounds)} req/s; plain node:http ${rates(plainRounds)} req/s; ` +
        `CPU a request: API ${apiMicros} µs, load generator ${loadMicros} µs, PostgreSQL + Redis ${restMicros} µs ` +
        `(started after ${(quiet.waitedMs / 1000).toFixed(0)} s of waiting for a quiet machine, ` +
        `${quiet.busyCores.toFixed(2)} cores busy)`,
    );
    const growth: SubscribeFigures['growth'] = [];
    for (const { cap, tenant } of growthOwners) {
      // The cap's code path (a look-up by endpoint before each insert, and a Redis count) runs on a
      // second API whose cap is set too high to refuse.
      const capped =
        cap === 'on'
          ? await buildApp(loadConfig({ ...env, RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: String(options.growthTotal * 10) }), {
              logger: { level: 'warn' },
            })
          : null;
      try {
        const target = capped ? `${await capped.listen({ port: 0, host: '127.0.0.1' })}/api/v1/subscribe` : url;
        const { blockSeconds } = await measureBlocks(
          {
            url: target,
            headers: { authorization: `Bearer ${tenant.app.secret}` },
            body: '',
            subscriptions: { endpointPrefix: `${options.origin}/push/growth-${cap}-${run}-`, keys },
            concurrency: options.concurrency,
            count: { total: options.growthTotal, blockSize: GROWTH_BLOCK },
          },
          201,
        );
        const curve = {
          cap,
          blockSize: GROWTH_BLOCK,
          perSecond: blockSeconds.map((seconds) => GROWTH_BLOCK / seconds),
        };
        growth.push(curve);
        const first = curve.perSecond[0] ?? Number.NaN;
        const last = curve.perSecond.at(-1) ?? Number.NaN;
        options.say(
          `POST /subscribe as one owner grows 0 → ${options.growthTotal.toLocaleString('en-US')}, per-app cap ${cap}: ` +
            `${rates(curve.perSecond)} req/s per ${GROWTH_BLOCK.toLocaleString('en-US')}, last ÷ first ` +
            `${(last / first).toFixed(2)} (plain Fastify route ${rates([median(plainFastifyRounds)])} req/s in this run)`,
        );
      } finally {
        await capped?.close();
      }
    }
    return {
      concurrency: options.concurrency,
      largeOwnerSubscriptions: options.largeOwnerSubscriptions,
      emptyPerSec: median(emptyRounds),
      largePerSec: median(largeRounds),
      emptyRounds,
      largeRounds,
      plainPerSec: median(plainRounds),
      plainRounds,
      vsPlain: median(emptyRounds.map((rate, index) => rate / (plainRounds[index] ?? Number.NaN))),
      plainFastifyPerSec: median(plainFastifyRounds),
      plainFastifyRounds,
      vsPlainFastify: median(emptyRounds.map((rate, index) => rate / (plainFastifyRounds[index] ?? Number.NaN))),
      growth,
      cpu,
      quiet,
    } satisfies SubscribeFigures;
  } finally {
    await plain.close();
    await plainFastify.close();
    await api.close();
  }
}

const TARGET_PER_SEC = 2_000;
const TARGET_VS_PLAIN = 0.25;
/** The growth measurement's block: the rate of each 5,000 new subscriptions as the table grows. */
const GROWTH_BLOCK = 5_000;
/** "Flat": the large owner's rate within 10 % of the empty owner's. */
const FLAT_WITHIN = 0.9;

/**
 * The report's verdict lines: the target, and where the CPU of one subscribe went, which bounds the
 * rate on this machine whatever the target says (every process of the path shares its cores).
 */
export function subscribeVerdict(figures: SubscribeFigures | null): string[] {
  if (figures === null)
    return [`Target POST /subscribe ≥ ${TARGET_PER_SEC.toLocaleString('en-US')} /s, flat: –  not assessed`];
  const { emptyPerSec, largePerSec, cpu, growth } = figures;
  const flat = largePerSec >= emptyPerSec * FLAT_WITHIN;
  const met = flat && Math.min(emptyPerSec, largePerSec) >= TARGET_PER_SEC;
  const rate = (value: number) => Math.round(value).toLocaleString('en-US');
  const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
  const growthLines = growth.map(({ cap, blockSize, perSecond }) => {
    const first = perSecond[0] ?? Number.NaN;
    const last = perSecond.at(-1) ?? Number.NaN;
    return (
      `Target POST /subscribe per ${rate(blockSize)} as one owner grows 0 → ${rate(blockSize * perSecond.length)}, ` +
      `per-app cap ${cap}, ≥ ${rate(TARGET_PER_SEC)} /s and the last within 10 % of the first: ` +
      `${perSecond.map(rate).join(' → ')} /s, last ÷ first ${(last / first).toFixed(2)} ` +
      `(plain Fastify route ${rate(figures.plainFastifyPerSec)} /s)  ` +
      verdict(last >= first * FLAT_WITHIN && Math.min(...perSecond) >= TARGET_PER_SEC)
    );
  });
  if (growthLines.length === 0)
    growthLines.push(
      'Target POST /subscribe per 5,000 as the table grows, flat: –  not assessed (BENCH_SUBSCRIBE_GROWTH=0)',
    );
  return [
    `Target POST /subscribe ≥ ${TARGET_VS_PLAIN}× a plain Fastify route parsing the bearer header: ` +
      `${figures.vsPlainFastify.toFixed(2)}× (${rate(emptyPerSec)} vs ${rate(figures.plainFastifyPerSec)} req/s)  ` +
      `${verdict(figures.vsPlainFastify >= TARGET_VS_PLAIN)}  (vs plain node:http ${figures.vsPlain.toFixed(2)}×, ` +
      `${rate(figures.plainPerSec)} req/s)`,
    `Target POST /subscribe ≥ ${rate(TARGET_PER_SEC)} /s at ${figures.concurrency} connections, flat 0 → ${rate(figures.largeOwnerSubscriptions)}: ` +
      `${rate(emptyPerSec)} → ${rate(largePerSec)} /s (${flat ? 'flat' : 'NOT flat'})  ${verdict(met)}`,
    ...growthLines,
    `  (CPU a subscribe: API ${cpu.apiMicros} µs + load generator ${cpu.loadMicros} µs + PostgreSQL and Redis ` +
      `${cpu.restMicros} µs = ${cpu.totalMicros} µs, so these cores allow at most ~${rate(cpu.ceilingPerSec)} /s)`,
  ];
}
