import type { WorkerEntry } from './worker-process.js';

/**
 * The benchmark's knobs, read once from the environment. The worker's own settings
 * (WORKER_DELIVERY_CONCURRENCY, PUSH_CONCURRENCY, DELIVERY_CHUNK_SIZE…) pass through to the worker
 * process unchanged, so `WORKER_DELIVERY_CONCURRENCY=8 pnpm bench` measures that; the bare sender
 * gets the same PUSH_CONCURRENCY as its sockets per origin.
 */
export const benchPhases = [
  'worker',
  'peers',
  'http',
  'audiences',
  'events',
  'subscribe',
  'crash',
  'flush',
  'accept',
  'storage',
  'embedded',
  'shapes',
  'export',
  'fairness',
  'throttle',
  'import',
  'stats',
  'retention',
] as const;
export type BenchPhase = (typeof benchPhases)[number];

export interface BenchOptions {
  /** BENCH_PHASES, e.g. `worker` while tuning the worker (`subscribe`: POST /subscribe alone, `accept`: the accept latency alone); default all. */
  phases: ReadonlySet<BenchPhase>;
  /** Subscriptions seeded and sent to by the worker (BENCH_SUBSCRIPTIONS, default 20,000). */
  subscriptions: number;
  /** Worker runs, each a notification to every subscription; the median is reported. */
  workerRuns: number;
  /** web-push and the bare sender send to the first min(N, this) subscriptions (default 20,000). */
  peerLimit: number;
  /** Promise-pool size of web-push and the bare sender (default 50). */
  peerConcurrency: number;
  peerRuns: number;
  /** Seconds of load per POST /notify and POST /bare round, after a 1 s warm-up. */
  httpSeconds: number;
  httpConcurrency: number;
  httpRuns: number;
  /** The stand-in checks one message in this many in full (1: every message). */
  verifyEvery: number;
  /** The stand-in answers each push after this many ms (BENCH_PUSH_DELAY_MS, default 0: CPU-bound). */
  pushDelayMs: number;
  /**
   * BENCH_PUSH_FORMAT: the measured app's `pushFormat` (`legacy`, the default, or `declarative`: every
   * push a W3C declarative message with its own signed click links).
   */
  pushFormat: 'legacy' | 'declarative';
  /** Distinct subscriber key pairs shared round-robin by the subscriptions. */
  keyPoolSize: number;
  adminDatabaseUrl: string;
  redisUrl: string;
  /**
   * BENCH_WORKER_ENTRY: `src` (default) runs apps/worker/src/main.ts through tsx, as the tests do;
   * `dist` runs the built apps/worker/dist/main.js as `pnpm start:worker` does (run `pnpm build` first);
   * `noop` runs the worker with a sender that sends nothing (`noop-worker.ts`): with BENCH_PHASES=worker,
   * a quick measure of the worker's own cost a push while tuning it.
   */
  workerEntry: WorkerEntry;
  // --- recovery phases (crash, flush) ---
  /** Subscriptions of the recovery app (BENCH_RECOVERY_TARGETS, default 5,000). */
  recoveryTargets: number;
  /** Subscriptions of the app the `export` phase exports (BENCH_EXPORT_ROWS, default 200,000). */
  exportRows: number;
  /** Engagement events of the app the `stats` phase reads (BENCH_STATS_EVENTS, default 10,000,000). */
  statsEvents: number;
  /** Engagement events of the month the `retention` phase drops (BENCH_RETENTION_EVENTS, default 10,000,000). */
  retentionEvents: number;
  /** Entries a request of the `import` phase (BENCH_IMPORT_ENTRIES, default 10,000: the API's maximum). */
  importEntries: number;
  /** Requests of the `import` phase, one after the other (BENCH_IMPORT_BATCHES, default 3; 100 for a 1,000,000-line file). */
  importBatches: number;
  /** Rounds of each recovery phase (BENCH_RECOVERY_ROUNDS, default 3); the median is reported. */
  recoveryRounds: number;
  // --- end recovery phases ---
  /** When set (BENCH_CPU_PROF=<dir>), the worker and the sender processes write `--cpu-prof` profiles here. */
  cpuProfileDir: string | null;
  /** Active subscriptions of the large owner in the POST /subscribe phase (BENCH_SUBSCRIBE_LARGE, default 100,000). */
  subscribeLarge: number;
  /** New subscriptions of one owner in the growth measurement, timed per 5,000 (BENCH_SUBSCRIBE_GROWTH, default 20,000; 0 skips it). */
  subscribeGrowth: number;
}

function pushFormatOf(raw: string | undefined): 'legacy' | 'declarative' {
  if (raw === undefined || raw === '' || raw === 'legacy') return 'legacy';
  if (raw === 'declarative') return 'declarative';
  throw new Error(`BENCH_PUSH_FORMAT must be legacy or declarative, got ${raw}`);
}

function integerAtLeast(minimum: number, env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < minimum)
    throw new Error(`${name} must be an integer ≥ ${minimum}, got ${raw}`);
  return value;
}
const positiveInteger = (env: NodeJS.ProcessEnv, name: string, fallback: number) =>
  integerAtLeast(1, env, name, fallback);
const nonNegativeInteger = (env: NodeJS.ProcessEnv, name: string, fallback: number) =>
  integerAtLeast(0, env, name, fallback);

function phasesOf(raw: string | undefined): Set<BenchPhase> {
  if (raw === undefined || raw === '') return new Set(benchPhases);
  const phases = new Set<BenchPhase>();
  for (const name of raw.split(',').map((part) => part.trim())) {
    const phase = benchPhases.find((known) => known === name);
    if (!phase) throw new Error(`BENCH_PHASES: unknown phase ${name} (known: ${benchPhases.join(', ')})`);
    phases.add(phase);
  }
  return phases;
}

function workerEntryOf(raw: string | undefined): WorkerEntry {
  if (raw === undefined || raw === '' || raw === 'src') return 'src';
  if (raw === 'dist' || raw === 'noop') return raw;
  throw new Error(`BENCH_WORKER_ENTRY must be src, dist or noop, got ${raw}`);
}

/**
 * BENCH_MODE=embedded: the embedded phase alone, a quick check (about a minute here): the same worker
 * on PostgreSQL queues and on Redis queues, alternating, over 5,000 subscriptions.
 *
 * BENCH_MODE=million: the 1,000,000-subscriber run, the worker phase alone, once (about six minutes
 * of sending here): worker peak RSS (target < 250 MB) and time to the first push, with the built
 * worker, as deployed (`pnpm build` first; tsx would add ~40 MB). Any BENCH_* set explicitly still wins.
 */
function presetOf(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.BENCH_MODE === undefined || env.BENCH_MODE === '') return env;
  if (env.BENCH_MODE === 'embedded') {
    return { BENCH_SUBSCRIPTIONS: '5000', BENCH_PHASES: 'embedded', BENCH_RUNS: '4', ...env };
  }
  if (env.BENCH_MODE !== 'million') throw new Error(`BENCH_MODE must be million or embedded, got ${env.BENCH_MODE}`);
  return {
    BENCH_SUBSCRIPTIONS: '1000000',
    BENCH_PHASES: 'worker',
    BENCH_RUNS: '1',
    BENCH_WORKER_ENTRY: 'dist',
    ...env,
  };
}

export function readBenchOptions(rawEnv: NodeJS.ProcessEnv = process.env): BenchOptions {
  const env = presetOf(rawEnv);
  const subscriptions = positiveInteger(env, 'BENCH_SUBSCRIPTIONS', 20_000);
  return {
    phases: phasesOf(env.BENCH_PHASES),
    subscriptions,
    workerRuns: positiveInteger(env, 'BENCH_RUNS', subscriptions <= 100_000 ? 3 : 1),
    peerLimit: positiveInteger(env, 'BENCH_PEER_LIMIT', 20_000),
    peerConcurrency: positiveInteger(env, 'BENCH_PEER_CONCURRENCY', 50),
    peerRuns: positiveInteger(env, 'BENCH_PEER_RUNS', 3),
    httpSeconds: positiveInteger(env, 'BENCH_HTTP_SECONDS', 4),
    httpConcurrency: positiveInteger(env, 'BENCH_HTTP_CONCURRENCY', 32),
    httpRuns: positiveInteger(env, 'BENCH_HTTP_RUNS', 3),
    verifyEvery: positiveInteger(env, 'BENCH_VERIFY_EVERY', 100),
    pushDelayMs: nonNegativeInteger(env, 'BENCH_PUSH_DELAY_MS', 0),
    pushFormat: pushFormatOf(env.BENCH_PUSH_FORMAT),
    keyPoolSize: positiveInteger(env, 'BENCH_KEY_POOL', 1_000),
    adminDatabaseUrl:
      env.BENCH_ADMIN_DATABASE_URL ?? env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.BENCH_REDIS_URL ?? env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    workerEntry: workerEntryOf(env.BENCH_WORKER_ENTRY),
    cpuProfileDir: env.BENCH_CPU_PROF || null,
    subscribeLarge: positiveInteger(env, 'BENCH_SUBSCRIBE_LARGE', 100_000),
    subscribeGrowth: nonNegativeInteger(env, 'BENCH_SUBSCRIBE_GROWTH', 20_000),
    recoveryTargets: positiveInteger(env, 'BENCH_RECOVERY_TARGETS', 5_000),
    exportRows: positiveInteger(env, 'BENCH_EXPORT_ROWS', 200_000),
    importEntries: positiveInteger(env, 'BENCH_IMPORT_ENTRIES', 10_000),
    statsEvents: positiveInteger(env, 'BENCH_STATS_EVENTS', 10_000_000),
    retentionEvents: positiveInteger(env, 'BENCH_RETENTION_EVENTS', 10_000_000),
    importBatches: positiveInteger(env, 'BENCH_IMPORT_BATCHES', 3),
    recoveryRounds: positiveInteger(env, 'BENCH_RECOVERY_ROUNDS', 3),
  };
}
