// `pnpm bench`: how fast one worker process delivers a notification to N subscriptions, against
// web-push in a promise pool (the naive peer) and the bare sender (no queue, no database), plus
// the request rate of POST /notify against a plain Fastify route. Everything runs on 127.0.0.1
// against its own database, Redis prefix and push stand-in, all removed at the end. Prints a table
// and, as its last line, one JSON object. Exits 0 whether or not the targets are met; non-zero
// only when something failed (then the figures would mean nothing).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@webpush/api/app';
import { loadConfig } from '@webpush/config';
import { deleteRedisKeys } from '@webpush/testing';
import Fastify from 'fastify';
import { withApiProcess } from './api-process.js';
import {
  type BenchApp,
  type BenchDatabase,
  createBenchApp,
  createBenchDatabase,
  loadTargets,
  seededEndpointPrefix,
  seedSubscriptions,
  seedTenant,
} from './bench-database.js';
import { combineCpu, loadAverage, type SendingCpu, startCpuMeter } from './cpu-meter.js';
import { subscriberKeyPool } from './key-pool.js';
import { assertBuiltApi, measureAccept } from './measure-accept.js';
import { measureAudiences } from './measure-audiences.js';
import { type EmbeddedFigures, embeddedFigures } from './measure-embedded.js';
import { measureEvents } from './measure-events.js';
import { measureExport, measureImport } from './measure-export.js';
import { measureRequestRate, type RequestRate } from './measure-http.js';
import { type SenderRound, startSenderProcess } from './measure-peers.js';
import { measureCrash, measureFlush, type RecoveryContext, type RecoveryFigures } from './measure-recovery.js';
import { measureRetention } from './measure-retention.js';
import type { FairnessFigures, ShapeFigures, ThrottleFigures } from './measure-shapes.js';
import { measureStats } from './measure-stats.js';
import {
  databaseActivity,
  grownBy,
  type RedisReader,
  redisBytes,
  type StorageFigures,
  tableSizes,
  walBytes,
} from './measure-storage.js';
import { measureSubscribe } from './measure-subscribe.js';
import { type NotificationRun, notifyAndWait } from './measure-worker.js';
import { readBenchOptions } from './options.js';
import {
  type BenchFigures,
  type FirstPush,
  type Machine,
  printReport,
  type SenderFigures,
  type WorkerFigures,
} from './report.js';
import type { SenderJob } from './sender-child.js';
import { type PushStandIn, startPushStandIn } from './stand-in-process.js';
import { median } from './stats.js';
import { startWorkerProcess, type WorkerEntry } from './worker-process.js';

const options = readBenchOptions();
const machine: Machine = {
  cpus: cpus().length,
  model: cpus()[0]?.model.trim() ?? 'unknown',
  node: process.version,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  loadAverageAtStart: loadAverage(),
};
/** A 200-byte notification, the size the per-message costs in docs/performance.md were measured with. */
const notification = { title: 'Bench', body: 'x'.repeat(143), url: 'https://example.com/a' };
const TTL_SECONDS = 86_400; // POST /notify's default, which the worker then uses
// A subject Apple would accept, so the service does not log a configuration problem at every start.
const VAPID_SUBJECT = 'mailto:bench@webpush-bench.dev';

const cleanups: (() => Promise<void>)[] = [];
async function cleanUp() {
  for (let undo = cleanups.pop(); undo; undo = cleanups.pop()) {
    await undo().catch((error: unknown) => console.error('clean-up step failed:', error));
  }
}
process.once('SIGINT', () => {
  console.error('interrupted: cleaning up');
  void cleanUp().finally(() => process.exit(130));
});

const say = (text: string) => console.log(`• ${text}`);
const perSecond = (count: number, seconds: number) => count / seconds;
const thousands = (value: number) => Math.round(value).toLocaleString('en-US');
/** The round with the median rate, so its CPU figures go with it. */
const medianRound = (rounds: RequestRate[]): RequestRate => {
  const sorted = [...rounds].sort((a, b) => a.perSecond - b.perSecond);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!middle) throw new Error('no round measured');
  return middle;
};

/** DELIVERY_PROGRESS_BATCH larger than any chunk: a chunk's answers reach PostgreSQL once, with its outcome. */
const NO_PROGRESS_WRITES = 1_000_000;
/** Unmeasured runs of the no-op worker before its rounds (see `measureFanOut`). */
const NOOP_WARM_UP_RUNS = 2;

interface WorkerRound {
  run: NotificationRun;
  /** Null for the no-op worker, whose pushes never reach the stand-in. */
  firstPush: FirstPush | null;
  cpu: SendingCpu;
}

/** A worker process kept running between its measured rounds (see `measureFanOut`). */
interface MeasuredWorker {
  /** `body`: what POST /notify sends (default the 200-byte `notification`). */
  round(index: number, body?: object, label?: string): Promise<WorkerRound>;
  /** Stops the process; its figures over `rounds`. */
  finish(rounds: WorkerRound[]): Promise<WorkerFigures>;
}

/**
 * (a) One worker process (configured by `env`) taking notifications POSTed to `apiUrl`, whose
 * Redis key prefix must be the worker's: each round is POST /notify → completed, to every subscription.
 */
async function openWorker(
  env: Record<string, string>,
  apiUrl: string,
  app: BenchApp,
  standIn: PushStandIn,
  database: BenchDatabase,
  label: string,
  entry: WorkerEntry = options.workerEntry,
): Promise<MeasuredWorker> {
  const N = options.subscriptions;
  const pushes = entry !== 'noop';
  const worker = await startWorkerProcess(env, entry, options.cpuProfileDir);
  cleanups.push(() => worker.stop());
  say(`${label} (${entry}, pid ${worker.pid}) ready, RSS ${worker.startRssMb.toFixed(1)} MB`);
  return {
    async round(index, body = notification, roundLabel = label) {
      const before = await standIn.stats();
      standIn.mark();
      const meter = startCpuMeter({ sender: worker.pid, standIn: standIn.pid });
      // Bounded: two minutes, plus 20 ms a subscription (50/s: seen at load average 40 on 2 cores).
      const run = await notifyAndWait(apiUrl, app.secret, body, 120_000 + 20 * N, async (progress) => {
        // Long runs (BENCH_MODE=million) say how far they are, so a run cut short still tells something.
        const { firstSinceMark } = await standIn.stats();
        const first = firstSinceMark === null ? '–' : `${thousands(firstSinceMark - progress.postedAt)} ms`;
        say(
          `  … ${thousands(progress.sent)} of ${thousands(progress.targets)} sent after ` +
            `${thousands((Date.now() - progress.postedAt) / 1000)} s; worker peak RSS ${worker.peakRssMb().toFixed(1)} MB, ` +
            `VmHWM ${worker.highWaterMarkMb().toFixed(1)} MB; first push ${first} after POST /notify`,
        );
      });
      const cpu = meter.stop(N);
      if (run.targets !== N || run.sent !== N) {
        throw new Error(`${label} run ${index}: ${JSON.stringify(run)}; expected ${N} targets, all sent`);
      }
      const received = (await standIn.stats()).received - before.received;
      if (pushes && received < N) throw new Error(`${label} run ${index}: the stand-in got ${received} pushes of ${N}`);
      const firstPush = pushes ? await firstPushOf(run, standIn, database) : null;
      say(
        `${roundLabel} ${index > 0 ? `run ${index}` : 'warm-up run (not counted)'}: ${thousands(N)} sent in ${run.seconds.toFixed(2)} s → ` +
          `${thousands(perSecond(N, run.seconds))}/s, ${thousands(cpu.micros.sender)} µs CPU a push ` +
          `(peak RSS so far ${worker.peakRssMb().toFixed(1)} MB)` +
          (firstPush === null
            ? ''
            : `; first push ${firstPush.totalMs.toFixed(1)} ms after POST /notify (accepted ${firstPush.acceptMs.toFixed(1)}, ` +
              `first chunk planned +${firstPush.planMs.toFixed(1)}, first push +${firstPush.deliverMs.toFixed(1)})`),
      );
      return { run, firstPush, cpu };
    },
    async finish(rounds) {
      await worker.stop();
      const rates = rounds.map(({ run }) => perSecond(run.sent, run.seconds));
      return {
        entry,
        sendsPerSec: median(rates),
        runsPerSec: rates,
        microsPerRun: rounds.map(({ cpu }) => cpu.micros.sender),
        peakRssMb: worker.peakRssMb(),
        startRssMb: worker.startRssMb,
        highWaterMarkMb: worker.highWaterMarkMb(),
        cpu: combineCpu(
          rounds.map(({ cpu }) => cpu),
          N * rounds.length,
        ),
        firstPushes: rounds.flatMap(({ firstPush }) => (firstPush === null ? [] : [firstPush])),
      };
    },
  };
}

/** (a) alone: `workerRuns` rounds of one worker process, one after the other. */
async function measureWorker(
  env: Record<string, string>,
  apiUrl: string,
  app: BenchApp,
  standIn: PushStandIn,
  database: BenchDatabase,
): Promise<WorkerFigures> {
  const worker = await openWorker(env, apiUrl, app, standIn, database, 'worker');
  const rounds: WorkerRound[] = [];
  for (let index = 1; index <= options.workerRuns; index++) rounds.push(await worker.round(index));
  return worker.finish(rounds);
}

/**
 * (q) Fair delivery across apps: while a send to every subscription of the bench app is under way
 * (a fifth of its pushes at the stand-in), another app's send to its one subscriber; how long after its
 * 202 that one was completed, and how far the large send had got by then.
 */
async function measureFairness(
  env: Record<string, string>,
  apiUrl: string,
  app: BenchApp,
  smallApp: BenchApp,
  standIn: PushStandIn,
  database: BenchDatabase,
): Promise<FairnessFigures> {
  const N = options.subscriptions;
  const worker = await openWorker(env, apiUrl, app, standIn, database, 'fairness worker');
  await worker.round(0); // warm-up, not counted
  const before = (await standIn.stats()).received;
  const large = worker.round(1, notification, 'large send');
  // Well under way: a fifth of its pushes out, the rest of its chunks queued.
  await waitUntil(async () => (await standIn.stats()).received - before > N / 5, 120_000);
  const small = await notifyAndWait(apiUrl, smallApp.secret, { ...notification, title: 'Just you' }, 60_000);
  const largeSentThen = (await standIn.stats()).received - before - small.sent;
  const largeRound = await large;
  await worker.finish([largeRound]);
  const figures: FairnessFigures = {
    smallCompletedMs: small.seconds * 1000,
    largeSentThen: Math.min(N, largeSentThen),
    largeTargets: N,
    largeSeconds: largeRound.run.seconds,
  };
  say(
    `fairness: another app's 1-subscriber send completed ${figures.smallCompletedMs.toFixed(0)} ms after its 202, ` +
      `when the large send had ${thousands(figures.largeSentThen)} of ${thousands(N)} pushes out (it took ` +
      `${figures.largeSeconds.toFixed(2)} s in all)`,
  );
  return figures;
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The send shapes compared with a plain send, each within its bound of it (see `measureShapes`). */
const SHAPES = {
  /** Two variants, A and B, each to half of the targets: ≤ 5 % slower. */
  variants: { bound: 0.05, body: { ...notification, variants: [{ title: 'Bench B', body: 'y'.repeat(143) }] } },
  /** Three languages, each subscription its own: ≤ 10 % slower. */
  translations: {
    bound: 0.1,
    body: {
      ...notification,
      translations: {
        en: { title: 'Bench (en)', body: 'e'.repeat(143) },
        fr: { title: 'Bench (fr)', body: 'f'.repeat(143) },
      },
    },
  },
  /** The same plain send with the app's frequency cap set (high enough to skip nobody): ≤ 10 % slower. */
  capped: { bound: 0.1, body: notification },
} as const;

/**
 * (v) A plain send against the send shapes the audiences and results features add: two A/B
 * variants, three languages, a frequency cap. One worker process, `workerRuns` rounds of each,
 * interleaved (plain, variants, translations, capped, plain, …) so the machine's drift falls on
 * all alike; the medians are compared. The subscriptions get ja, en and fr in turn first.
 */
async function measureShapes(
  env: Record<string, string>,
  apiUrl: string,
  app: BenchApp,
  standIn: PushStandIn,
  database: BenchDatabase,
): Promise<ShapeFigures> {
  const { sql } = database.handle;
  await sql`update subscriptions set language = (array['ja', 'en', 'fr'])[1 + abs(hashtext(endpoint)) % 3]
    where app_id = ${app.id}`;
  const worker = await openWorker(env, apiUrl, app, standIn, database, 'shapes worker');
  const rates: Record<'plain' | keyof typeof SHAPES, number[]> = {
    plain: [],
    variants: [],
    translations: [],
    capped: [],
  };
  const rate = (round: WorkerRound) => perSecond(round.run.sent, round.run.seconds);
  const plainRounds: WorkerRound[] = [];
  await worker.round(0); // warm-up, not counted
  for (let index = 1; index <= options.workerRuns; index++) {
    const plainRound = await worker.round(index, notification, 'plain send');
    plainRounds.push(plainRound);
    rates.plain.push(rate(plainRound));
    rates.variants.push(rate(await worker.round(index, SHAPES.variants.body, 'two variants')));
    rates.translations.push(rate(await worker.round(index, SHAPES.translations.body, 'three languages')));
    // Read by the chunk query of each chunk: set for this round only. Each round pushes every
    // subscription once, so a cap of 100 an hour skips nobody and every target is still sent.
    await sql`update apps set frequency_cap = '{"max": 100, "hours": 1}'::jsonb where id = ${app.id}`;
    try {
      rates.capped.push(rate(await worker.round(index, SHAPES.capped.body, 'frequency cap set')));
    } finally {
      await sql`update apps set frequency_cap = null where id = ${app.id}`;
    }
  }
  await worker.finish(plainRounds);
  const plain = median(rates.plain);
  const shapes = Object.fromEntries(
    (Object.keys(SHAPES) as (keyof typeof SHAPES)[]).map((name) => {
      const sendsPerSec = median(rates[name]);
      const slowerBy = plain / sendsPerSec - 1;
      const bound = SHAPES[name].bound;
      say(
        `shape ${name}: ${thousands(sendsPerSec)}/s vs plain ${thousands(plain)}/s in the same run: ` +
          `${(slowerBy * 100).toFixed(1)} % slower (bound ${bound * 100} %)`,
      );
      return [name, { sendsPerSec, runsPerSec: rates[name], slowerBy, bound, met: slowerBy <= bound }];
    }),
  ) as ShapeFigures['shapes'];
  return { plainSendsPerSec: plain, plainRunsPerSec: rates.plain, shapes };
}

/**
 * (v) One send to every subscription throttled to 60 % of them a minute: by the contract at most
 * that many pushes go out in any minute, so it should end after 100 s (the issue's 100,000 at
 * 60,000 a minute, and any other size in proportion). From POST /notify to `completedAt`.
 */
async function measureThrottle(
  env: Record<string, string>,
  apiUrl: string,
  app: BenchApp,
  standIn: PushStandIn,
  database: BenchDatabase,
): Promise<ThrottleFigures> {
  const N = options.subscriptions;
  const perMinute = Math.max(10, Math.round(N * 0.6));
  const worker = await openWorker(env, apiUrl, app, standIn, database, 'throttle worker');
  const round = await worker.round(
    1,
    { ...notification, throttle: { perMinute } },
    `throttled at ${thousands(perMinute)}/min`,
  );
  await worker.finish([round]);
  const figures = { targets: N, perMinute, expectedSeconds: (N / perMinute) * 60, seconds: round.run.seconds };
  say(`throttle: ${JSON.stringify(figures)}`);
  return figures;
}

/**
 * (s) What one send to every subscription leaves in PostgreSQL (each table's growth, dead rows
 * included, then the live rows after VACUUM FULL) and in Redis (the run's keys, sampled every
 * 200 ms while it runs, and once it completed), per push; plus the row one `shown` event per push
 * adds (the row the engagement flush writes, inserted directly).
 */
async function measureStorage(
  env: Record<string, string>,
  apiUrl: string,
  app: BenchApp,
  standIn: PushStandIn,
  database: BenchDatabase,
  redis: RedisReader,
  redisPrefix: string,
): Promise<StorageFigures> {
  const N = options.subscriptions;
  const { sql } = database.handle;
  const worker = await openWorker(env, apiUrl, app, standIn, database, 'storage worker');
  // Compact first: the dead rows earlier phases left would otherwise count against this send's live rows.
  await sql`vacuum full`;
  await sql`checkpoint`;
  const before = await tableSizes(database);
  await database.handle.sql`select pg_stat_clear_snapshot()`;
  const activityBefore = await databaseActivity(database);
  const redisBefore = await redisBytes(redis, redisPrefix);
  let redisPeak = redisBefore;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      redisPeak = Math.max(redisPeak, await redisBytes(redis, redisPrefix));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const round = await worker.round(1);
  sampling = false;
  await sampler;
  await worker.finish([round]);
  // The statistics collector reports a backend's counts when its transaction ends, within a second.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await database.handle.sql`select pg_stat_clear_snapshot()`;
  const activityAfter = await databaseActivity(database);
  const redisAfter = await redisBytes(redis, redisPrefix);
  const written = grownBy(before, await tableSizes(database));
  const grownTables = Object.keys(written);
  for (const table of grownTables) await sql.unsafe(`vacuum full "${table}"`);
  const live = grownBy(before, await tableSizes(database));
  const eventsBefore = (await tableSizes(database)).notification_events ?? 0;
  await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
    select n.id, s.id, 'shown', n.app_id, n.created_at from subscriptions s, notifications n
    where s.app_id = ${app.id} and n.id = ${round.run.id}`;
  const eventsAfter = (await tableSizes(database)).notification_events ?? 0;
  const perPush = (bytes: number) => bytes / N;
  const sum = (sizes: Record<string, number>) => Object.values(sizes).reduce((total, bytes) => total + bytes, 0);
  const figures: StorageFigures = {
    pushes: N,
    postgresPerPush: Object.fromEntries(Object.entries(written).map(([name, bytes]) => [name, perPush(bytes)])),
    postgresTotalPerPush: perPush(sum(written)),
    postgresLivePerPush: perPush(sum(live)),
    eventPerPush: perPush(eventsAfter - eventsBefore),
    redisAfterPerPush: perPush(redisAfter - redisBefore),
    redisPeakPerPush: perPush(redisPeak - redisBefore),
    commitsPerPush: perPush(activityAfter.commits - activityBefore.commits),
    rowsWrittenPerPush: perPush(activityAfter.rows - activityBefore.rows),
    walBytesPerPush: perPush(await walBytes(database, activityBefore.wal, activityAfter.wal)),
  };
  say(`storage: ${JSON.stringify(figures)}`);
  return figures;
}

/**
 * When the first push of a run reached the stand-in, and the hops before it, from timestamps on one
 * machine's clock: POST sent → the accept transaction (`notifications.created_at`) → the planning
 * transaction of the first chunk (its `created_at`: job add, worker pickup, beginFanOut) → first
 * push at the stand-in (queueing the chunk, pickup, loading it, VAPID key, encryption, connection).
 */
async function firstPushOf(run: NotificationRun, standIn: PushStandIn, database: BenchDatabase): Promise<FirstPush> {
  const { firstSinceMark } = await standIn.stats();
  const [row] = await database.handle.sql<{ accepted: number; planned: number | null }[]>`
    select extract(epoch from n.created_at)::float8 * 1000 as accepted,
      (select extract(epoch from min(c.created_at))::float8 * 1000 from notification_chunks c
        where c.notification_id = n.id) as planned
    from notifications n where n.id = ${run.id}`;
  if (!row || row.planned === null || firstSinceMark === null) throw new Error(`no first push for ${run.id}`);
  return {
    totalMs: firstSinceMark - run.postedAt,
    acceptMs: row.accepted - run.postedAt,
    planMs: row.planned - row.accepted,
    deliverMs: firstSinceMark - row.planned,
  };
}

/** What the senders are given: the first subscriptions in fan-out order, the app's VAPID key, the payload. */
async function senderJobs(database: BenchDatabase, app: BenchApp, standIn: PushStandIn, pushConcurrency: number) {
  const targets = await loadTargets(database, app.id, Math.min(options.subscriptions, options.peerLimit));
  return (mode: SenderJob['mode']): SenderJob => ({
    mode,
    concurrency: options.peerConcurrency,
    maxSocketsPerOrigin: pushConcurrency,
    targets,
    vapid: { ...app.vapid, subject: VAPID_SUBJECT },
    payload: JSON.stringify(notification),
    hostRule: standIn.hostRule,
    ttl: TTL_SECONDS,
  });
}

function senderFigures(mode: SenderJob['mode'], rounds: SenderRound[], connections: number): SenderFigures {
  const failed = rounds.find(({ run }) => run.failed > 0)?.run;
  if (failed) throw new Error(`${mode} sender: ${failed.failed} failed, e.g. ${failed.firstError}`);
  const rates = rounds.map(({ run }) => perSecond(run.sent, run.seconds));
  const sent = rounds.reduce((sum, { run }) => sum + run.sent, 0);
  say(`${mode} sender: ${rates.map(thousands).join(', ')} sends/s, ${connections} TLS connections`);
  return {
    sendsPerSec: median(rates),
    runsPerSec: rates,
    microsPerRun: rounds.map(({ cpu }) => cpu.micros.sender),
    cpu: combineCpu(
      rounds.map(({ cpu }) => cpu),
      sent,
    ),
    connections,
  };
}

/**
 * (b) web-push and (c) the bare sender, over the first subscriptions in fan-out order, each in a
 * process of its own, `peerRuns` rounds one after the other. The bare sender on the worker's protocol
 * is left out when `measureFanOut` has measured it between the worker's rounds.
 */
async function measurePeers(
  database: BenchDatabase,
  app: BenchApp,
  standIn: PushStandIn,
  pushConcurrency: number,
  http2: boolean,
  workDir: string,
  interleavedBare: SenderFigures | null,
) {
  const job = await senderJobs(database, app, standIn, pushConcurrency);
  const measured: Partial<Record<SenderJob['mode'], SenderFigures>> = {};
  // `bare` is the bare sender on the worker's protocol (PUSH_HTTP2), measured beside the other one.
  const bareMode = http2 ? 'bare-h2' : 'bare-h1';
  const otherMode = http2 ? 'bare-h1' : 'bare-h2';
  if (interleavedBare) measured[bareMode] = interleavedBare;
  for (const mode of [bareMode, otherMode, 'naive'] as const) {
    if (measured[mode]) continue;
    const before = await standIn.stats();
    const sender = await startSenderProcess(job(mode), workDir, standIn, options.cpuProfileDir);
    const rounds: SenderRound[] = [];
    try {
      for (let index = 0; index < options.peerRuns; index++) rounds.push(await sender.round());
    } finally {
      await sender.stop();
    }
    const after = await standIn.stats();
    measured[mode] = senderFigures(mode, rounds, after.connections - before.connections);
  }
  const bare = measured[bareMode];
  const otherProtocol = measured[otherMode];
  const { naive } = measured;
  if (!bare || !naive || !otherProtocol) throw new Error('a sender was not measured');
  return { peerSubscriptions: job('naive').targets.length, bare, otherProtocol, naive, http2 };
}

/** Opens a worker of its own Redis key prefix (`suffix` added), with an in-process API that queues there. */
type SideWorkerOpener = (
  label: string,
  suffix: string,
  env: Record<string, string>,
  entry: WorkerEntry,
  apiEnv?: Record<string, string>,
) => Promise<MeasuredWorker>;

/**
 * (a) and (c) interleaved, as an outside harness measures them: round i is the worker's run i, then
 * the same worker without progress writes, then the no-op worker (`noop-worker.ts`: the same worker
 * with a sender that sends nothing, so what it spends a push is the worker's own cost beyond the
 * push), then the bare sender's run i. The two side workers have their own process, API and Redis
 * prefix, so none takes another's jobs. Each process stays up between its rounds, so drift of the
 * machine over the minutes of the phase falls on all alike instead of on whichever ran last; the
 * report pairs the rounds by index.
 */
async function measureFanOut(
  workerEnv: Record<string, string>,
  apiUrl: string,
  openSideWorker: SideWorkerOpener,
  context: { database: BenchDatabase; app: BenchApp; standIn: PushStandIn; workDir: string },
  delivery: { pushConcurrency: number; http2: boolean },
) {
  const { database, app, standIn, workDir } = context;
  const withProgress = await openWorker(workerEnv, apiUrl, app, standIn, database, 'worker');
  const sideWorkers = options.subscriptions <= 100_000;
  const unwritten = sideWorkers
    ? await openSideWorker(
        'worker without progress writes',
        'unwritten',
        { DELIVERY_PROGRESS_BATCH: String(NO_PROGRESS_WRITES) },
        options.workerEntry,
      )
    : null;
  // Without encryption threads: its sender encrypts nothing, so a pool would only add idle threads.
  const noop = sideWorkers ? await openSideWorker('no-op worker', 'noop', { PUSH_CRYPTO_THREADS: '0' }, 'noop') : null;
  // Its runs last about a second, so a new process would spend its first measured rounds compiling
  // its hot paths: two unmeasured runs first (measured: 48, 32, 33 … 22 µs a push over 8 runs).
  if (noop) for (let warmUp = 1; warmUp <= NOOP_WARM_UP_RUNS; warmUp++) await noop.round(-warmUp);
  const bareMode = delivery.http2 ? 'bare-h2' : 'bare-h1';
  const job = await senderJobs(database, app, standIn, delivery.pushConcurrency);
  const bare = await startSenderProcess(job(bareMode), workDir, standIn, options.cpuProfileDir);
  cleanups.push(() => bare.stop().catch(() => undefined));
  const rounds = {
    worker: [] as WorkerRound[],
    unwritten: [] as WorkerRound[],
    noop: [] as WorkerRound[],
    bare: [] as SenderRound[],
  };
  let bareConnections = 0;
  for (let index = 1; index <= options.workerRuns; index++) {
    rounds.worker.push(await withProgress.round(index));
    if (unwritten) rounds.unwritten.push(await unwritten.round(index));
    if (noop) rounds.noop.push(await noop.round(index));
    const before = await standIn.stats();
    const round = await bare.round();
    bareConnections += (await standIn.stats()).connections - before.connections;
    say(
      `${bareMode} sender run ${index}: ${thousands(perSecond(round.run.sent, round.run.seconds))}/s, ` +
        `${thousands(round.cpu.micros.sender)} µs CPU a push`,
    );
    rounds.bare.push(round);
  }
  await bare.stop();
  return {
    worker: await withProgress.finish(rounds.worker),
    workerWithoutProgress: unwritten ? await unwritten.finish(rounds.unwritten) : null,
    noopWorker: noop ? await noop.finish(rounds.noop) : null,
    bare: senderFigures(bareMode, rounds.bare, bareConnections),
  };
}

/**
 * (f) The embedded mode's queues (measure-embedded.ts): the same worker with its queues in Redis and
 * in PostgreSQL, `workerRuns` rounds each, alternating; the PostgreSQL one behind an API on
 * in-process coordination, as `pnpm dev` runs embedded.
 */
async function measureEmbedded(openSideWorker: SideWorkerOpener): Promise<EmbeddedFigures> {
  const onRedis = await openSideWorker('worker on Redis queues', 'queues-redis', {}, options.workerEntry);
  const postgresQueues = { QUEUE_BACKEND: 'postgres' };
  const onPostgres = await openSideWorker(
    'worker on PostgreSQL queues',
    'queues-postgres',
    postgresQueues,
    options.workerEntry,
    { ...postgresQueues, COORDINATION: 'process' },
  );
  const rounds = { redis: [] as WorkerRound[], postgres: [] as WorkerRound[] };
  for (let index = 1; index <= options.workerRuns; index++) {
    rounds.redis.push(await onRedis.round(index));
    rounds.postgres.push(await onPostgres.round(index));
  }
  const figures = embeddedFigures(await onRedis.finish(rounds.redis), await onPostgres.finish(rounds.postgres));
  say(
    `embedded: PostgreSQL queues ${thousands(figures.postgres.sendsPerSec)}/s vs Redis queues ` +
      `${thousands(figures.redis.sendsPerSec)}/s → ${figures.ratio}×; first push ${figures.firstPushMs} ms ` +
      `(Redis queues ${figures.redisFirstPushMs} ms)`,
  );
  return figures;
}

/** (d) POST /notify to an app without subscribers vs a plain Fastify route, same process, same load. */
async function measureHttp(apiUrl: string, emptyApp: BenchApp) {
  const bare = Fastify({ logger: { level: 'warn' } });
  bare.post('/bare', async (_request, reply) => reply.code(202).send({ ok: true }));
  cleanups.push(() => bare.close());
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  const load = (url: string, headers: Record<string, string>) => ({
    url,
    headers,
    body: JSON.stringify(notification),
    concurrency: options.httpConcurrency,
    seconds: options.httpSeconds,
  });
  const notifyRounds: RequestRate[] = [];
  const bareRounds: RequestRate[] = [];
  for (let index = 0; index < options.httpRuns; index++) {
    bareRounds.push(await measureRequestRate(load(`${bareUrl}/bare`, {}), 202));
    notifyRounds.push(
      await measureRequestRate(load(`${apiUrl}/api/v1/notify`, { authorization: `Bearer ${emptyApp.secret}` }), 202),
    );
  }
  const rates = (rounds: RequestRate[]) => rounds.map((round) => thousands(round.perSecond)).join(', ');
  say(`POST /notify: ${rates(notifyRounds)} req/s; POST /bare: ${rates(bareRounds)} req/s`);
  return { notify: medianRound(notifyRounds), bare: medianRound(bareRounds) };
}

async function run(): Promise<BenchFigures> {
  const N = options.subscriptions;
  if (options.phases.has('accept')) assertBuiltApi();
  say(
    `${thousands(N)} subscriptions; ${machine.cpus} × ${machine.model}, Node ${machine.node}; ` +
      `load average ${machine.loadAverageAtStart}`,
  );
  const workDir = mkdtempSync(join(tmpdir(), 'wp-bench-'));
  cleanups.push(async () => rmSync(workDir, { recursive: true, force: true }));

  const keySeed = randomBytes(32);
  const standIn = await startPushStandIn({
    keySeed,
    keyPoolSize: options.keyPoolSize,
    verifyEvery: options.verifyEvery,
    delayMs: options.pushDelayMs,
  });
  cleanups.push(() => standIn.close());
  say(
    `push stand-in (pid ${standIn.pid}) on ${standIn.origin}, checking 1 message in ${options.verifyEvery} in full, ` +
      `answering after ${options.pushDelayMs} ms`,
  );

  const database = await createBenchDatabase(options.adminDatabaseUrl);
  cleanups.push(() => database.drop());
  const redisKeyPrefix = `bench:${database.name}`;
  cleanups.push(() => deleteRedisKeys(options.redisUrl, redisKeyPrefix));

  const serviceEnv: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    PUBLIC_URL: 'http://localhost:3000',
    DATABASE_URL: database.url,
    REDIS_URL: options.redisUrl,
    REDIS_KEY_PREFIX: redisKeyPrefix,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    API_KEY_PEPPER: randomBytes(32).toString('base64'),
    PUSH_SERVICE_HOSTS: standIn.hostRule,
    VAPID_SUBJECT,
    RATE_LIMIT_API_KEY_MAX: '1000000000',
  };
  const apiConfig = loadConfig(serviceEnv);
  if (!apiConfig.encryptionKey || !apiConfig.apiKeyPepper) throw new Error('bench secrets did not load');
  const tenant = await seedTenant(database, {
    encryptionKey: apiConfig.encryptionKey,
    apiKeyPepper: apiConfig.apiKeyPepper,
  });
  if (options.pushFormat === 'declarative') {
    await database.handle.db.$client`update apps set push_format = 'declarative',
      default_url = 'https://bench.example/' where id = ${tenant.app.id}`;
  }
  const seedStarted = performance.now();
  const pool = subscriberKeyPool(keySeed, options.keyPoolSize);
  await seedSubscriptions(database, tenant.app.id, N, standIn.origin, pool, (done) => {
    if (N >= 200_000 && done % 200_000 === 0) say(`seeded ${thousands(done)}`);
  });
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  say(
    `database ${database.name} migrated and seeded in ${seedSeconds.toFixed(1)} s (${options.keyPoolSize} key pairs)`,
  );

  const api = await buildApp(apiConfig, { logger: { level: 'warn' } });
  cleanups.push(() => api.close());
  const apiUrl = await api.listen({ port: 0, host: '127.0.0.1' });
  // The export and import phases measure the API process's memory: an API of its own there, from
  // the same entry as the worker (BENCH_WORKER_ENTRY=dist: the built one), on the same database.
  const apiProcessEntry = options.workerEntry === 'dist' ? 'dist' : 'src';
  // (x) An app of its own with BENCH_EXPORT_ROWS subscriptions, endpoints after every other app's.
  const measureExportPhase = async () => {
    const secrets = {
      encryptionKey: apiConfig.encryptionKey as Buffer,
      apiKeyPepper: apiConfig.apiKeyPepper as Buffer,
    };
    const exportApp = await createBenchApp(database, secrets, tenant.userId, 'bench (export)');
    await seedSubscriptions(database, exportApp.id, options.exportRows, standIn.origin, pool, () => {}, 50_000_000);
    return withApiProcess(serviceEnv, apiProcessEntry, (api) =>
      measureExport(database, secrets.apiKeyPepper, tenant.userId, exportApp.id, options.exportRows, api, say),
    );
  };

  const workerEnv = {
    ...serviceEnv,
    LOG_LEVEL: 'info', // for its 'worker ready' line; it logs nothing per push at this level
    HOST: '127.0.0.1',
    PORT: '0',
    NODE_EXTRA_CA_CERTS: standIn.certPath,
  };
  // The worker reads its settings from the environment, the bench's own passing through.
  const { delivery } = loadConfig({ ...process.env, ...workerEnv });

  // (a) and (c) side by side when both are asked for; otherwise whichever is.
  let worker: WorkerFigures | null = null;
  let workerWithoutProgress: WorkerFigures | null = null;
  let noopWorker: WorkerFigures | null = null;
  let interleavedBare: SenderFigures | null = null;
  // The side workers have their own Redis prefix each (with QUEUE_BACKEND=postgres, their own queue
  // schema), and an API that queues there; `apiEnv` goes to that API as well.
  const openSideWorker: SideWorkerOpener = async (label, suffix, env, entry, apiEnv = {}) => {
    const prefix = `${redisKeyPrefix}:${suffix}`;
    cleanups.push(() => deleteRedisKeys(options.redisUrl, prefix));
    const sideApi = await buildApp(loadConfig({ ...serviceEnv, ...apiEnv, REDIS_KEY_PREFIX: prefix }), {
      logger: { level: 'warn' },
    });
    cleanups.push(() => sideApi.close());
    const sideApiUrl = await sideApi.listen({ port: 0, host: '127.0.0.1' });
    return openWorker(
      { ...workerEnv, ...env, REDIS_KEY_PREFIX: prefix },
      sideApiUrl,
      tenant.app,
      standIn,
      database,
      label,
      entry,
    );
  };
  if (options.phases.has('worker') && options.phases.has('peers')) {
    const context = { database, app: tenant.app, standIn, workDir };
    ({
      worker,
      workerWithoutProgress,
      noopWorker,
      bare: interleavedBare,
    } = await measureFanOut(workerEnv, apiUrl, openSideWorker, context, delivery));
  } else if (options.phases.has('worker')) {
    worker = await measureWorker(workerEnv, apiUrl, tenant.app, standIn, database);
  }
  const peers = options.phases.has('peers')
    ? await measurePeers(
        database,
        tenant.app,
        standIn,
        delivery.pushConcurrency,
        delivery.http2,
        workDir,
        interleavedBare,
      )
    : null;
  const shapes = options.phases.has('shapes')
    ? await measureShapes(workerEnv, apiUrl, tenant.app, standIn, database)
    : null;
  const throttle = options.phases.has('throttle')
    ? await measureThrottle(workerEnv, apiUrl, tenant.app, standIn, database)
    : null;
  const exported = options.phases.has('export') ? await measureExportPhase() : null;
  const imported = options.phases.has('import')
    ? await (async () => {
        const secrets = {
          encryptionKey: apiConfig.encryptionKey as Buffer,
          apiKeyPepper: apiConfig.apiKeyPepper as Buffer,
        };
        const importApp = await createBenchApp(database, secrets, tenant.userId, 'bench (import)');
        return withApiProcess(serviceEnv, apiProcessEntry, (api) =>
          measureImport(
            database,
            secrets.apiKeyPepper,
            tenant.userId,
            importApp.id,
            {
              entries: options.importEntries,
              batches: options.importBatches,
              endpointPrefix: seededEndpointPrefix(standIn.origin),
              keys: pool,
            },
            api,
            say,
          ),
        );
      })()
    : null;
  let fairness: FairnessFigures | null = null;
  if (options.phases.has('fairness')) {
    const secrets = {
      encryptionKey: apiConfig.encryptionKey as Buffer,
      apiKeyPepper: apiConfig.apiKeyPepper as Buffer,
    };
    const smallApp = await createBenchApp(database, secrets, tenant.userId, 'bench (small)');
    // After every other app's endpoint numbers (the stand-in counts pushes per number).
    await seedSubscriptions(database, smallApp.id, 1, standIn.origin, pool, () => {}, N + options.recoveryTargets);
    fairness = await measureFairness(workerEnv, apiUrl, tenant.app, smallApp, standIn, database);
  }
  const embedded = options.phases.has('embedded') ? await measureEmbedded(openSideWorker) : null;
  const http = options.phases.has('http') ? await measureHttp(apiUrl, tenant.emptyApp) : null;
  const events = options.phases.has('events')
    ? await measureEvents(api, apiUrl, database, tenant.app, standIn.origin, options, say)
    : null;

  // --- recovery phases: SIGKILL of one of two workers, FLUSHDB of a private Redis ---
  // Before the audiences phase, which leaves unsent notifications behind for these workers to find.
  let crash: RecoveryFigures | null = null;
  let flush: RecoveryFigures | null = null;
  if (options.phases.has('crash') || options.phases.has('flush')) {
    const secrets = { encryptionKey: apiConfig.encryptionKey, apiKeyPepper: apiConfig.apiKeyPepper };
    const recoveryApp = await createBenchApp(database, secrets, tenant.userId, 'bench (recovery)');
    // Endpoints after the main app's, so the stand-in counts this app's arrivals on their own.
    await seedSubscriptions(database, recoveryApp.id, options.recoveryTargets, standIn.origin, pool, () => {}, N);
    const recovery: RecoveryContext = {
      database,
      app: recoveryApp,
      targets: options.recoveryTargets,
      standIn,
      workerEnv,
      apiUrl,
      // The recovery phases count pushes at the stand-in: the no-op worker's entry means the sources.
      workerEntry: options.workerEntry === 'noop' ? 'src' : options.workerEntry,
      rounds: options.recoveryRounds,
      say,
      cleanups,
    };
    if (options.phases.has('crash')) crash = await measureCrash(recovery);
    if (options.phases.has('flush')) flush = await measureFlush(recovery);
  }
  // --- end recovery phases ---
  const storage = options.phases.has('storage')
    ? await measureStorage(
        workerEnv,
        apiUrl,
        tenant.app,
        standIn,
        database,
        (api as unknown as { redis: RedisReader }).redis,
        redisKeyPrefix,
      )
    : null;
  // After storage: the notifications this phase accepts (no worker runs) would queue ahead of the storage send.
  const accept = options.phases.has('accept')
    ? await measureAccept(apiUrl, standIn.origin, { database, serviceEnv }, say)
    : null;
  // Last: it gives the subscriptions uids and tags and leaves accepted (unsent) notifications behind.
  const audiences = options.phases.has('audiences') ? await measureAudiences(database, tenant.app, apiUrl, say) : null;
  const stats = options.phases.has('stats') ? await measureStats(apiUrl, database, options.statsEvents, say) : null;
  const retention = options.phases.has('retention')
    ? await measureRetention(apiUrl, database, options.retentionEvents, say)
    : null;
  const subscribe = options.phases.has('subscribe')
    ? await measureSubscribe(database, {
        serviceEnv,
        origin: standIn.origin,
        pool,
        largeOwnerSubscriptions: options.subscribeLarge,
        growthTotal: options.subscribeGrowth,
        concurrency: options.httpConcurrency,
        seconds: options.httpSeconds,
        runs: options.httpRuns,
        say,
      })
    : null;

  const final = await standIn.stats();
  if (final.violations > 0) throw new Error(`the stand-in saw protocol errors: ${final.violationSamples.join('; ')}`);
  if (final.received > 0 && final.verified === 0) throw new Error('the stand-in verified no message in full');

  return {
    subscriptions: N,
    interleaved: interleavedBare !== null,
    worker,
    workerWithoutProgress,
    noopWorker,
    peers,
    http,
    audiences,
    events,
    subscribe,
    crash,
    flush,
    accept,
    storage,
    embedded,
    shapes,
    throttle,
    stats,
    retention,
    exported,
    imported,
    fairness,
    settings: {
      chunkConcurrency: delivery.chunkConcurrency,
      pushConcurrency: delivery.pushConcurrency,
      chunkSize: delivery.chunkSize,
      progressBatch: delivery.progressBatch,
      fanOutConcurrency: delivery.fanOutConcurrency,
      cryptoThreads: delivery.cryptoThreads,
    },
    standIn: {
      verifyEvery: standIn.verifyEvery,
      delayMs: standIn.delayMs,
      received: final.received,
      verified: final.verified,
      violations: final.violations,
      connections: final.connections,
      h2Sessions: final.h2Sessions,
    },
    seedSeconds,
    machine,
  };
}

let exitCode = 0;
try {
  const figures = await run();
  await cleanUp();
  printReport(figures);
} catch (error) {
  console.error('bench failed:', error);
  await cleanUp();
  exitCode = 1;
}
process.exit(exitCode);
