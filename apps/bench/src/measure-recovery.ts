// The recovery rows: a worker SIGKILLed mid-fan-out (two workers), and Redis losing its data
// (FLUSHDB) mid-fan-out. Each round sends one notification to the recovery app's subscriptions,
// breaks something once ~30 % of them reached the stand-in, and measures from that instant to the
// notification's `completedAt`, plus the pushes that arrived twice (counted per endpoint by the
// stand-in). FLUSHDB runs against a private redis-server on a free port, never the shared one.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { buildApp } from '@webpush/api/app';
import { loadConfig, unrecordedBound } from '@webpush/config';
import type { BenchApp, BenchDatabase } from './bench-database.js';
import type { PushStandIn } from './stand-in-process.js';
import { median } from './stats.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

const run = promisify(execFile);

export interface RecoveryRound {
  /** From the kill (or the flush) to the notification's `completedAt`. */
  afterSeconds: number;
  /** Pushes at the stand-in when it happened. */
  atEvent: number;
  /** Endpoints that got the notification more than once. */
  duplicated: number;
  sent: number;
  /** Log lines of the surviving worker(s) that say a job's lock was lost (`Missing lock`). */
  missingLock: number;
}

export interface RecoveryFigures {
  kind: 'crash' | 'flush';
  targets: number;
  workers: number;
  rounds: RecoveryRound[];
  medianAfterSeconds: number;
  maxDuplicated: number;
  /** Pushes one worker can have in flight: WORKER_DELIVERY_CONCURRENCY × PUSH_CONCURRENCY. */
  inFlight: number;
  /** What a SIGKILL of one worker may leave sent but unrecorded (@webpush/config `unrecordedBound`). */
  unrecordedBound: number;
  /** flush only: transactions/s the worker process makes in the bench database while idle. */
  idleTransactionsPerSec: number | null;
  /** flush only: RECONCILE_INTERVAL_MS, RECONCILE_STALE_MS in force. */
  reconcile: { intervalMs: number; staleMs: number };
}

export interface RecoveryContext {
  database: BenchDatabase;
  app: BenchApp;
  targets: number;
  standIn: PushStandIn;
  /** The service environment (the shared Redis in REDIS_URL) for the workers and the API. */
  workerEnv: Record<string, string>;
  apiUrl: string;
  workerEntry: 'src' | 'dist';
  rounds: number;
  say: (text: string) => void;
  cleanups: (() => Promise<void>)[];
}

interface NotificationBody {
  notification: { id: string; status: string; targets: number; sent: number; completedAt: string | null };
}

async function post(apiUrl: string, app: BenchApp): Promise<string> {
  const response = await fetch(`${apiUrl}/api/v1/notify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Recovery', body: 'x'.repeat(120) }),
  });
  if (response.status !== 202) throw new Error(`POST /notify answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as NotificationBody).notification.id;
}

async function finished(apiUrl: string, app: BenchApp, id: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${apiUrl}/api/v1/notifications/${id}`, {
      headers: { authorization: `Bearer ${app.secret}` },
    });
    const { notification } = (await response.json()) as NotificationBody;
    if (notification.status === 'completed' || notification.status === 'failed') return notification;
    if (Date.now() > deadline)
      throw new Error(`notification ${id} still ${notification.status}: ${notification.sent} sent`);
    await sleep(50);
  }
}

/** Resolves once `count` pushes reached the stand-in since its last mark. */
async function pushesReached(standIn: PushStandIn, count: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { receivedSinceMark } = await standIn.stats();
    if (receivedSinceMark >= count) return receivedSinceMark;
    if (Date.now() > deadline) throw new Error(`only ${receivedSinceMark} pushes within ${timeoutMs} ms`);
    await sleep(5);
  }
}

const missingLock = (workers: WorkerProcess[]) =>
  workers.reduce((sum, worker) => sum + worker.warnings().filter((line) => line.includes('Missing lock')).length, 0);

/** One round: `break` is called once 30 % of the pushes are out; returns the round's figures. */
async function round(
  context: RecoveryContext,
  apiUrl: string,
  survivors: () => WorkerProcess[],
  breakIt: () => Promise<void>,
): Promise<RecoveryRound> {
  const { standIn, app, targets } = context;
  standIn.mark();
  const id = await post(apiUrl, app);
  const atEvent = await pushesReached(standIn, Math.floor(targets * 0.3), 60_000);
  await breakIt();
  const brokenAt = Date.now();
  const done = await finished(apiUrl, app, id, 120_000);
  const stats = await standIn.stats();
  if (done.status !== 'completed' || done.sent !== targets || stats.distinctSinceMark !== targets) {
    throw new Error(
      `recovery round: ${done.status}, ${done.sent} of ${targets} sent, ${stats.distinctSinceMark} endpoints reached`,
    );
  }
  return {
    afterSeconds: (Date.parse(done.completedAt ?? '') - brokenAt) / 1000,
    atEvent,
    duplicated: stats.duplicatedSinceMark,
    sent: done.sent,
    missingLock: missingLock(survivors()),
  };
}

function summarise(
  kind: RecoveryFigures['kind'],
  context: RecoveryContext,
  workers: number,
  rounds: RecoveryRound[],
  idleTransactionsPerSec: number | null,
): RecoveryFigures {
  const { delivery } = loadConfig({ ...process.env, ...context.workerEnv });
  return {
    kind,
    targets: context.targets,
    workers,
    rounds,
    medianAfterSeconds: median(rounds.map((r) => r.afterSeconds)),
    maxDuplicated: Math.max(...rounds.map((r) => r.duplicated)),
    inFlight: delivery.chunkConcurrency * delivery.pushConcurrency,
    unrecordedBound: unrecordedBound(delivery),
    idleTransactionsPerSec,
    reconcile: { intervalMs: delivery.reconcileIntervalMs, staleMs: delivery.reconcileStaleMs },
  };
}

/** SIGKILL of one of two workers mid-fan-out; the other one finishes. */
export async function measureCrash(context: RecoveryContext): Promise<RecoveryFigures> {
  const rounds: RecoveryRound[] = [];
  for (let index = 1; index <= context.rounds; index++) {
    const [victim, survivor] = await Promise.all([
      startWorkerProcess(context.workerEnv, context.workerEntry, null, true),
      startWorkerProcess(context.workerEnv, context.workerEntry, null, true),
    ]);
    if (!victim || !survivor) throw new Error('workers did not start');
    try {
      const result = await round(
        context,
        context.apiUrl,
        () => [survivor],
        () => victim.kill(),
      );
      rounds.push(result);
      context.say(
        `crash round ${index}: SIGKILL after ${result.atEvent} of ${context.targets} pushes; completed ` +
          `${result.afterSeconds.toFixed(1)} s after the kill, ${result.duplicated} pushes arrived twice, ` +
          `${result.missingLock} 'Missing lock' lines`,
      );
      for (const line of survivor.warnings()) if (line.includes('Missing lock')) context.say(`  survivor: ${line}`);
    } finally {
      await victim.kill();
      await survivor.stop();
    }
  }
  return summarise('crash', context, 2, rounds, null);
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** A private, memory-only redis-server on a free port, stopped with the bench. */
async function startPrivateRedis(cleanups: (() => Promise<void>)[]): Promise<{ url: string; port: number }> {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  for (let attempt = 0; ; attempt++) {
    try {
      const { stdout } = await run('redis-cli', ['-p', String(port), 'ping']);
      if (stdout.trim() === 'PONG') break;
    } catch (error) {
      if (attempt > 100) throw error;
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}`, port };
}

/** Transactions/s the bench database commits over `seconds` (only the idle worker is connected then). */
async function idleTransactionRate(database: BenchDatabase, seconds: number): Promise<number> {
  const count = async () => {
    const [row] = await database.handle.sql<{ commits: string }[]>`
      select pg_stat_get_db_xact_commit(oid) + pg_stat_get_db_xact_rollback(oid) as commits
      from pg_database where datname = current_database()`;
    return Number(row?.commits ?? 0);
  };
  // The statistics collector flushes every second or so; sample far apart and discount our own queries.
  const before = await count();
  await sleep(seconds * 1000);
  const after = await count();
  return Math.max(0, after - before - 1) / seconds;
}

/** FLUSHDB of the worker's Redis (a private server) mid-fan-out; one worker finishes. */
export async function measureFlush(context: RecoveryContext): Promise<RecoveryFigures> {
  const redis = await startPrivateRedis(context.cleanups);
  const env = { ...context.workerEnv, REDIS_URL: redis.url };
  // An API of its own on the private Redis: the fan-out job must reach the workers' queues.
  const api = await buildApp(loadConfig(env), { logger: { level: 'warn' } });
  context.cleanups.push(() => api.close());
  const apiUrl = await api.listen({ port: 0, host: '127.0.0.1' });
  const worker = await startWorkerProcess(env, context.workerEntry, null, true);
  context.cleanups.push(() => worker.stop());
  context.say(`flush phase: private redis-server on port ${redis.port}, 1 worker (pid ${worker.pid})`);
  const rounds: RecoveryRound[] = [];
  let idle: number | null = null;
  try {
    for (let index = 1; index <= context.rounds; index++) {
      const result = await round(
        context,
        apiUrl,
        () => [],
        async () => {
          await run('redis-cli', ['-p', String(redis.port), 'flushdb']);
        },
      );
      rounds.push(result);
      context.say(
        `flush round ${index}: FLUSHDB after ${result.atEvent} of ${context.targets} pushes; completed ` +
          `${result.afterSeconds.toFixed(1)} s after the flush, ${result.duplicated} pushes arrived twice`,
      );
    }
    await sleep(1_000);
    idle = await idleTransactionRate(context.database, 10);
    context.say(`idle worker: ${idle.toFixed(1)} PostgreSQL transactions/s (reconciler, scheduler, clean-up)`);
  } finally {
    await worker.stop();
  }
  return summarise('flush', context, 1, rounds, idle);
}
