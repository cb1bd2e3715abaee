import { createECDH, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setUserPlan } from '@webpush/db';
import { withApiProcess } from './api-process.js';
import type { BenchDatabase } from './bench-database.js';
import { repoRoot } from './child.js';
import { loadAverage, waitForQuietMachine } from './cpu-meter.js';
import { apiProfileDir, measureSequentialLatency, startPlainFastify } from './measure-http.js';
import { median, round } from './stats.js';

/** One configuration's figures: medians of its rounds' p50 and p99. */
export interface LatencyFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** Each round's own figures. */
  rounds: { requests: number; p50Ms: number; p99Ms: number }[];
}

/**
 * POST /notify accept latency, sequential requests to a 1-subscriber app, in two configurations:
 * the bench's API (from sources, in the bench process, logging at `warn`) and the API as users run
 * it (the built `apps/api/dist/server.js` in a process of its own, default configuration and
 * logging, its stdout a pipe the bench drains as a process manager does).
 */
export interface AcceptLatency extends LatencyFigures {
  /** The built API, default logging (LOG_LEVEL unset: `info`, one request line and more per request). */
  built: LatencyFigures & {
    /** Lines the built API wrote to its stdout a request during the rounds: its logging was on. */
    logLinesPerRequest: number;
  };
  /**
   * The machine's floor in the same run: the plain Fastify route (bearer header, JSON body, 202),
   * from the same kind of client, one request at a time, a round after each accept round; medians.
   * Not a target: it shows how much of the accept latency is the machine's own round trip.
   */
  plain: LatencyFigures;
  /**
   * The floor of a durable accept in the same run: a one-row insert committed on its own, one at a
   * time from the bench process, on the same PostgreSQL (its WAL flush waits for the disk, and for
   * whatever else writes WAL on the server), a round after each plain round; medians. Not a target.
   */
  commit: LatencyFigures;
  /** How long the phase waited for a quiet machine first, and the cores busy when it started. */
  quiet: { waitedMs: number; busyCores: number };
  /** 1-minute load average before and after the timed requests. */
  loadAverageBefore: number;
  loadAverageAfter: number;
}

/** What the phase needs besides the bench's API: its database and the service's environment. */
export interface AcceptContext {
  database: BenchDatabase;
  /** The environment the bench's own API was configured from; the built API gets it without LOG_LEVEL. */
  serviceEnv: Record<string, string>;
}

/** Timed seconds of committed inserts in a round. */
const COMMIT_SECONDS = 3;

/**
 * Latencies of one-row inserts, each its own transaction (so each waits for its WAL flush, as the
 * accept's statement does), one at a time for `seconds`, sorted ascending.
 */
async function measureCommits(database: BenchDatabase, seconds: number): Promise<number[]> {
  const { sql } = database.handle;
  await sql`create table if not exists bench_commit_floor (id bigint generated always as identity primary key, at timestamptz not null default now())`;
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    await sql`insert into bench_commit_floor default values`;
    latencies.push(performance.now() - started);
  }
  return latencies.sort((a, b) => a - b);
}

const TARGET_P50_MS = 3;
const TARGET_P99_MS = 10;
/** Timed seconds of sequential requests in a round, after http-load.ts's warm-up second. */
const SECONDS = 6;
const ROUNDS = 3;

/** The value at `p` (0–1) of ascending `sorted`. */
export const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))] ?? Number.NaN;

/** The fields of the answers this phase reads (register, app, key, notify). */
interface Answer {
  token: string;
  app: { id: string };
  secret: string;
  notification: { targets: number };
}

/** POST of JSON to the API as a customer's client makes it; throws unless it answered `expected`. */
export async function call<T = Answer>(
  apiUrl: string,
  path: string,
  token: string | null,
  body: unknown,
  expected: number,
): Promise<T> {
  const response = await fetch(`${apiUrl}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

const BUILT_API = 'apps/api/dist/server.js';

/** Throws, saying what to run, when the built API the phase starts is missing (checked before a long run starts). */
export function assertBuiltApi(): void {
  if (!existsSync(join(repoRoot, BUILT_API)))
    throw new Error(`the built API (${BUILT_API}) is missing: run \`pnpm build\` first`);
}

/** The built API's environment: the bench's service settings, but the default log level. */
export function defaultLoggingEnv(serviceEnv: Record<string, string>): Record<string, string> {
  const { LOG_LEVEL: _level, LOG_REQUESTS: _requests, ...env } = serviceEnv;
  return env;
}

/** Medians of `rounds`. */
function figuresOf(rounds: LatencyFigures['rounds']): LatencyFigures {
  return {
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
    p50Ms: median(rounds.map((round) => round.p50Ms)),
    p99Ms: median(rounds.map((round) => round.p99Ms)),
    rounds,
  };
}

/**
 * An account made through the API like any customer's (register, app, `notify` key, one
 * subscription on the stand-in's origin; the Pro plan, so the rounds' sends stay under its monthly
 * limit), then POST /notify to it one request at a time for `SECONDS` from http-load.ts in a process
 * of its own (so the client does not share the API's event loop), each timed from just before the
 * request to the end of the 202 body. Keep-alive, no worker running (accept only: the fan-out jobs
 * wait in this run's Redis prefix). Each round measures the bench's API, then the built API in a
 * process of its own (`apps/api/dist/server.js`, started once for the phase, on the same database
 * and Redis prefix, with the default logging), then the plain Fastify route the same way: the round
 * trip the machine itself allows (on a shared 2-vCPU VM its p99 alone was 4.4 ms against a plain
 * node:http server).
 */
export async function measureAccept(
  apiUrl: string,
  pushOrigin: string,
  { database, serviceEnv }: AcceptContext,
  say: (text: string) => void,
): Promise<AcceptLatency> {
  assertBuiltApi();
  const email = `bench-accept-${randomBytes(4).toString('hex')}@example.com`;
  const { token } = await call(apiUrl, '/auth/register', null, { email, password: 'bench accept password' }, 201);
  await setUserPlan(database.handle.db, email, 'pro', null);
  const { app } = await call(apiUrl, '/apps', token, { name: 'bench accept' }, 201);
  const { secret } = await call(apiUrl, `/apps/${app.id}/keys`, token, { scope: 'notify' }, 201);
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  await call(
    apiUrl,
    '/subscribe',
    secret,
    {
      endpoint: `${pushOrigin}/push/accept-bench`,
      p256dh: ecdh.getPublicKey().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    },
    201,
  );

  const body = { title: 'Bench', body: 'accept latency', url: 'https://example.com/a' };
  const sequential = async (url: string) => {
    const latencies = await measureSequentialLatency(
      { url, headers: { authorization: `Bearer ${secret}` }, body: JSON.stringify(body), seconds: SECONDS },
      202,
    );
    return { requests: latencies.length, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
  };
  return withApiProcess(
    defaultLoggingEnv(serviceEnv),
    'dist',
    async (built) => {
      // After the recovery phases PostgreSQL still vacuums and checkpoints for a while: p50 3.39 ms right
      // after a crash round against 2.49 ms alone, falling round by round (3.80, 3.39, 3.09).
      const quiet = await waitForQuietMachine();
      const loadAverageBefore = loadAverage();
      // Rounds, each from a new client process: on this 2-core VM one round's p50 varies by up to 1.7×
      // with where the scheduler puts the API, the client and the PostgreSQL backend.
      const rounds: LatencyFigures['rounds'] = [];
      const builtRounds: typeof rounds = [];
      const plainRounds: typeof rounds = [];
      const commitRounds: typeof rounds = [];
      let builtLines = 0;
      const plain = await startPlainFastify();
      try {
        for (let round = 0; round < ROUNDS; round++) {
          rounds.push(await sequential(`${apiUrl}/api/v1/notify`));
          const linesBefore = built.stdoutLines();
          builtRounds.push(await sequential(`${built.url}/api/v1/notify`));
          builtLines += built.stdoutLines() - linesBefore;
          plainRounds.push(await sequential(plain.url));
          const commits = await measureCommits(database, COMMIT_SECONDS);
          commitRounds.push({
            requests: commits.length,
            p50Ms: percentile(commits, 0.5),
            p99Ms: percentile(commits, 0.99),
          });
        }
      } finally {
        await plain.close();
      }
      const builtFigures = figuresOf(builtRounds);
      // The client's warm-up second is logged too: lines over every request the rounds sent, measured or not.
      const sentPerMeasured = (SECONDS + 1) / SECONDS;
      const figures: AcceptLatency = {
        ...figuresOf(rounds),
        built: { ...builtFigures, logLinesPerRequest: builtLines / (builtFigures.requests * sentPerMeasured) },
        plain: figuresOf(plainRounds),
        commit: figuresOf(commitRounds),
        quiet,
        loadAverageBefore,
        loadAverageAfter: loadAverage(),
      };
      say(describeAccept(figures));
      return figures;
    },
    {
      stdout: 'pipe',
      // BENCH_API_PROF: the built API's whole life (start-up included) in `accept-built.cpuprofile`.
      nodeFlags: apiProfileDir
        ? ['--cpu-prof', `--cpu-prof-dir=${apiProfileDir}`, '--cpu-prof-name=accept-built.cpuprofile']
        : [],
    },
  );
}

const each = (figures: LatencyFigures, pick: (round: LatencyFigures['rounds'][number]) => number) =>
  figures.rounds.map((r) => pick(r).toFixed(2)).join(', ');

const describeAccept = (figures: AcceptLatency) =>
  `POST /notify accept, 1-subscriber app, ${ROUNDS} rounds of ${SECONDS} s one request at a time: ` +
  `the bench's API p50 ${each(figures, (r) => r.p50Ms)} ms, p99 ${each(figures, (r) => r.p99Ms)} ms; ` +
  `the built API, default logging, p50 ${each(figures.built, (r) => r.p50Ms)} ms, p99 ${each(figures.built, (r) => r.p99Ms)} ms ` +
  `(~${figures.built.logLinesPerRequest.toFixed(1)} log lines a request); the plain Fastify route between them, ` +
  `p50 ${figures.plain.p50Ms.toFixed(2)} ms, p99 ${figures.plain.p99Ms.toFixed(2)} ms; a committed one-row insert, ` +
  `p50 ${each(figures.commit, (r) => r.p50Ms)} ms, p99 ${each(figures.commit, (r) => r.p99Ms)} ms (load average ${figures.loadAverageBefore} → ` +
  `${figures.loadAverageAfter}; started after ${(figures.quiet.waitedMs / 1000).toFixed(0)} s of waiting for a quiet machine, ` +
  `${figures.quiet.busyCores.toFixed(2)} cores busy)`;

const metBy = (figures: LatencyFigures) => figures.p50Ms <= TARGET_P50_MS && figures.p99Ms <= TARGET_P99_MS;
const met = (latency: AcceptLatency) => metBy(latency) && metBy(latency.built);
const p50p99 = (figures: LatencyFigures) => `p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms`;

/** The report's table rows: the bench's API, then the built one. */
export const acceptRows = (latency: AcceptLatency | null): string[][] => [
  [
    'POST /notify accept latency, sequential, 1-subscriber app',
    latency ? p50p99(latency) : '–',
    `target p50 ≤ ${TARGET_P50_MS} ms, p99 ≤ ${TARGET_P99_MS} ms; the bench's API (sources, in the bench process, logging at warn); ` +
      `median of ${ROUNDS} rounds of ${SECONDS} s ` +
      (latency
        ? `(the machine's floor, a plain Fastify route the same way between them: ${p50p99(latency.plain)}) `
        : '') +
      `(${latency ? latency.requests : '–'} requests) after 1 s warm-up each, one at a time from a client process (node:http, keep-alive), ` +
      `Pro-plan app with 1 subscriber, no worker${
        latency
          ? `; started after ${(latency.quiet.waitedMs / 1000).toFixed(0)} s of waiting for a quiet machine (${latency.quiet.busyCores.toFixed(2)} cores busy then); load average ${latency.loadAverageBefore}`
          : ''
      }`,
  ],
  [
    '    the same, built API, default logging',
    latency ? p50p99(latency.built) : '–',
    `same target; ${BUILT_API} in a process of its own, LOG_LEVEL unset (info: ` +
      `${latency ? `~${latency.built.logLinesPerRequest.toFixed(1)}` : '–'} log lines a request to a pipe the bench drains), ` +
      `the same rounds (${latency ? latency.built.requests : '–'} requests)`,
  ],
  [
    '    a committed one-row insert, sequential',
    latency ? p50p99(latency.commit) : '–',
    `not a target: the floor of a durable accept on this machine (the WAL flush of a commit), ` +
      `${COMMIT_SECONDS} s after each plain round, from the bench process to the same PostgreSQL`,
  ],
];

/** The report's verdict line. */
export const acceptVerdict = (latency: AcceptLatency | null): string =>
  `Target POST /notify accept p50 ≤ ${TARGET_P50_MS} ms, p99 ≤ ${TARGET_P99_MS} ms, the bench's API and the built one with default logging: ` +
  (latency
    ? `${p50p99(latency)}; built ${p50p99(latency.built)}  ${met(latency) ? 'MET' : 'NOT MET'}`
    : '–  not assessed');

const figuresJson = (figures: LatencyFigures) => ({
  requests: figures.requests,
  p50Ms: round(figures.p50Ms, 2),
  p99Ms: round(figures.p99Ms, 2),
  rounds: figures.rounds.map((r) => ({ requests: r.requests, p50Ms: round(r.p50Ms, 2), p99Ms: round(r.p99Ms, 2) })),
});

/** The report's JSON field. */
export const acceptJson = (latency: AcceptLatency | null) =>
  latency === null
    ? null
    : {
        ...figuresJson(latency),
        built: { ...figuresJson(latency.built), logLinesPerRequest: round(latency.built.logLinesPerRequest, 2) },
        quietWaitMs: latency.quiet.waitedMs,
        busyCoresAtStart: round(latency.quiet.busyCores, 2),
        loadAverageBefore: latency.loadAverageBefore,
        loadAverageAfter: latency.loadAverageAfter,
        plain: figuresJson(latency.plain),
        commit: figuresJson(latency.commit),
        target: { p50Ms: TARGET_P50_MS, p99Ms: TARGET_P99_MS, met: met(latency) },
      };
