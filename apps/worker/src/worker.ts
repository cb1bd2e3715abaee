import type { Config } from '@webpush/config';
import { createDatabase, type RetentionRemoved } from '@webpush/db';
import {
  ClickTokens,
  createEncryptionPool,
  createPushSender,
  type EncryptionPool,
  type PushSender,
} from '@webpush/push';
import {
  closeRedisConnection,
  createQueues,
  createRedisConnection,
  type DeliveryChunkJob,
  type FanOutJob,
  newWorker,
  queueNames,
  queueTransport,
  type RedisConnection,
} from '@webpush/queue';
import { bullmqTelemetry } from '@webpush/tracing';
import type { Job, Queue, Worker, WorkerOptions } from 'bullmq';
import { type Logger, pino } from 'pino';
import type { Registry } from 'prom-client';
import type { WorkerContext } from './context.js';
import { deliverChunk } from './delivery/deliver-chunk.js';
import { fanOut } from './delivery/fan-out.js';
import { ProgressRecorder } from './delivery/progress-recorder.js';
import { VapidKeyring } from './delivery/vapid-keyring.js';
import { DependenciesDownError, type Dependency } from './ops/health-server.js';
import { createWorkerMetrics } from './ops/metrics.js';
import { type AuthCleanup, startAuthCleanup } from './periodic/auth-cleanup.js';
import { type LocalTimeStarter, startLocalTimeStarter } from './periodic/local-time-starter.js';
import type { PeriodicTask } from './periodic/periodic-task.js';
import { type Reconciler, startReconciler } from './periodic/reconciler.js';
import { startRetention } from './periodic/retention.js';
import { type RetiredVapidKeyCleanup, startRetiredVapidKeyCleanup } from './periodic/retired-vapid-key-cleanup.js';
import { type Scheduler, startScheduler } from './periodic/scheduler.js';
import { guardWorker } from './periodic/stuck-worker-guard.js';
import { type SubscriberCountCheck, startSubscriberCountCheck } from './periodic/subscriber-count-check.js';
import { startWinnerPass, type WinnerPass } from './periodic/variant-winners.js';
import { startWebhookDelivery, type WebhookDelivery } from './webhooks/delivery.js';

export interface WorkerDeps {
  /** Defaults to a sender over `config.pushServiceHosts`; tests pass one that trusts their push stand-in. */
  sender?: PushSender;
  /** Defaults to PUSH_CRYPTO_THREADS threads (none for 0); tests pass one they watch. Closed by its owner. */
  encryption?: EncryptionPool | null;
  log?: Logger;
  /** Extra CA trusted by webhook deliveries (tests' local HTTPS receiver). */
  webhookCa?: string;
}

export interface RunningWorker {
  readonly metrics: Registry;
  readonly reconciler: Reconciler;
  readonly subscriberCountCheck: SubscriberCountCheck;
  readonly scheduler: Scheduler;
  /** Chooses the winners of A/B tests whose sample has had its minutes. */
  readonly winners: WinnerPass;
  /** Starts the due groups of `localTime` sends. */
  readonly localTimeStarter: LocalTimeStarter;
  readonly authCleanup: AuthCleanup;
  readonly retention: PeriodicTask<RetentionRemoved>;
  readonly retiredVapidKeyCleanup: RetiredVapidKeyCleanup;
  /** Webhook deliveries and the outbox relay. */
  readonly webhooks: WebhookDelivery;
  /** Resolves while PostgreSQL and Redis (when the queues live there) answer. */
  ready(): Promise<void>;
  /** Stops taking jobs, lets the active ones finish, and closes every connection. */
  close(): Promise<void>;
}

/**
 * BullMQ workers for fan-out, delivery chunks and webhooks, plus the periodic tasks. `main.ts` runs
 * it as a process; tests run it in-process against their own database and key prefix.
 */
export async function startWorker(config: Config, deps: WorkerDeps = {}): Promise<RunningWorker> {
  const log = deps.log ?? pino({ level: config.logLevel, base: { service: 'worker' } });
  // Webhook jobs hold a connection only between their short queries: a few share the pool.
  const connections = config.delivery.chunkConcurrency + config.delivery.fanOutConcurrency + 4;
  const database = createDatabase(config.databaseUrl, { max: connections });
  // postgres.js connects lazily: open the pool now so the first push pays no connection start-up.
  // A database that is down is reported by /readyz, and queries connect again anyway.
  void Promise.all(Array.from({ length: connections }, () => database.sql`select 1`)).catch((error: unknown) =>
    log.warn({ err: error }, 'could not open the PostgreSQL pool at start-up'),
  );
  // Redis carries nothing but the queues here: with QUEUE_BACKEND=postgres the worker never connects to it.
  // Workers block on Redis and must never give up on a command (`maxRetriesPerRequest: null`).
  const redis = config.queueBackend === 'redis' ? createRedisConnection(config, 'worker') : null;
  redis?.on('error', (error) => log.warn({ err: error }, 'redis connection error'));
  const transport = queueTransport(config, () => redis as RedisConnection);
  const telemetry = bullmqTelemetry();
  const queues = createQueues(transport, { telemetry });
  const sender =
    deps.sender ??
    createPushSender({
      allowlist: config.pushServiceHosts,
      maxSocketsPerOrigin: config.delivery.pushConcurrency,
      http2: config.delivery.http2,
      proxy: config.outboundProxy,
    });
  const encryption =
    deps.encryption !== undefined
      ? deps.encryption
      : config.delivery.cryptoThreads > 0
        ? createEncryptionPool({
            threads: config.delivery.cryptoThreads,
            onError: (error) =>
              log.error({ err: error }, 'encryption thread failed: its pushes are encrypted on the event loop'),
          })
        : null;
  const metrics = createWorkerMetrics(queues, (error) => log.warn({ err: error }, 'queue depth unavailable'));
  const context: WorkerContext = {
    config,
    db: database.db,
    queues,
    sender,
    encryption,
    progress: new ProgressRecorder(database.db, config.delivery.progressBatch, {
      onRetry: (error, retry) => {
        if (retry === 1) log.warn({ err: error }, 'PostgreSQL unreachable: the progress write is tried again');
      },
    }),
    keyring: new VapidKeyring(config.encryptionKey, config.vapidSubject),
    clickTokens: config.encryptionKey ? ClickTokens.fromEncryptionKey(config.encryptionKey) : null,
    metrics,
    log,
  };

  const common: Omit<WorkerOptions, 'connection'> = {
    // A lock renewed every quarter of its life survives a stall of three quarters of it, and a dead
    // worker's jobs are taken over within one lock (docs/configuration.md, WORKER_LOCK_DURATION_MS).
    // A lost lock only costs the pushes in flight: both runs skip what the other recorded.
    lockDuration: config.delivery.lockDurationMs,
    lockRenewTime: config.delivery.lockDurationMs / 4,
    stalledInterval: config.delivery.stalledIntervalMs,
    // A job whose worker died is retried a few times before it counts as failed; the reconciler
    // covers even that, since the record of what is left lives in PostgreSQL.
    maxStalledCount: 3,
    // bullmq-otel when tracing is on: each job's span continues the trace of the request that queued it.
    ...(telemetry ? { telemetry } : {}),
  };
  const onWorker = (worker: Worker) => {
    worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'worker error'));
    worker.on('failed', (job, error) =>
      log.warn({ err: error, queue: worker.name, jobId: job?.id, attempts: job?.attemptsMade }, 'job failed'),
    );
  };
  // Each queue's worker under a guard that replaces it should it stop taking jobs (seen after a
  // Redis Cluster failover; see stuck-worker-guard.ts).
  const guard = { checkMs: 2_000, stuckMs: 15_000, log, onWorker };
  const workers = [
    guardWorker(
      () =>
        newWorker<FanOutJob>(queueNames.fanOut, (job: Job<FanOutJob>) => fanOut(context, job.data), transport, {
          ...common,
          concurrency: config.delivery.fanOutConcurrency,
        }) as Worker,
      queues.fanOut as Queue,
      guard,
    ),
    guardWorker(
      () =>
        newWorker<DeliveryChunkJob>(
          queueNames.deliveries,
          (job: Job<DeliveryChunkJob>) => deliverChunk(context, job.data),
          transport,
          { ...common, concurrency: config.delivery.chunkConcurrency },
        ) as Worker,
      queues.deliveries as Queue,
      guard,
    ),
  ];
  for (const queue of queues.all()) queue.on('error', (error) => log.warn({ err: error }, 'queue error'));
  const reconciler = startReconciler(context);
  const scheduler = startScheduler(context);
  const winners = startWinnerPass(context);
  const localTimeStarter = startLocalTimeStarter(context);
  const authCleanup = startAuthCleanup(context);
  const retention = startRetention(context);
  const retiredVapidKeyCleanup = startRetiredVapidKeyCleanup(context);
  const subscriberCountCheck = startSubscriberCountCheck(context);
  const webhooks = startWebhookDelivery(
    context,
    transport,
    common,
    deps.webhookCa === undefined ? {} : { ca: deps.webhookCa },
  );
  let closing: Promise<void> | null = null;
  async function closeOnce(): Promise<void> {
    await reconciler.stop();
    await scheduler.stop();
    await winners.stop();
    await localTimeStarter.stop();
    await authCleanup.stop();
    await retention.stop();
    await retiredVapidKeyCleanup.stop();
    await subscriberCountCheck.stop();
    // With Redis gone no job can be acknowledged anyway: don't wait for the active ones.
    const force = redis !== null && redis.status !== 'ready';
    // Each queue worker's close is bounded (stuck-worker-guard.ts); so are the rest, since a close
    // that waits on a Redis command that never settles (seen after a cluster failover) never ends.
    const bounded = (what: string, closing: Promise<unknown>) =>
      withTimeout(closing, 15_000, `${what} did not close within 15 s`).catch((error: unknown) =>
        log.warn({ err: error }, 'closing went on without it'),
      );
    await Promise.all([
      ...workers.map((worker) => worker.close(force)),
      bounded('webhook delivery', webhooks.close(force)),
    ]);
    await bounded('queues', queues.close());
    if (!deps.sender) await sender.close();
    if (deps.encryption === undefined) await encryption?.close();
    // QUIT waits for a connection that may never come back; only a live one is closed politely.
    if (redis) await closeRedisConnection(redis);
    await database.close();
  }

  return {
    metrics: metrics.registry,
    reconciler,
    scheduler,
    winners,
    localTimeStarter,
    authCleanup,
    retention,
    retiredVapidKeyCleanup,
    webhooks,
    subscriberCountCheck,
    async ready() {
      // A worker connection retries forever, so a ping to a Redis that is down never settles:
      // answer from the connection state instead, and bound both checks. What went wrong is
      // logged here; the health server only says which dependency is down.
      const check = async (dependency: Dependency, probe: () => Promise<unknown>) => {
        try {
          await withTimeout(probe(), 2_000, `${dependency} readiness check timed out`);
          return null;
        } catch (error) {
          log.warn({ err: error, dependency }, 'readiness check failed');
          return dependency;
        }
      };
      const down = (
        await Promise.all([
          check('postgres', () => database.sql`select 1`),
          ...(redis === null
            ? []
            : [
                check('redis', async () => {
                  const connection = redis;
                  // Right after start (or a first connect on a loaded machine) the connection is still
                  // being set up: give it a moment instead of answering 503 for a Redis about to be ready.
                  if (CONNECTING.has(connection.status)) await waitForReady(connection, 1_000);
                  if (connection.status !== 'ready') throw new Error(`redis is ${connection.status}`);
                  await connection.ping();
                }),
              ]),
        ])
      ).filter((dependency): dependency is Dependency => dependency !== null);
      if (down.length > 0) throw new DependenciesDownError(down);
    },
    close() {
      // A second call (a test's teardown after the test stopped it) waits for the first.
      closing ??= closeOnce();
      return closing;
    },
  };
}

/** ioredis states of a connection that has not been ready yet (not one that lost Redis: `reconnecting`). */
const CONNECTING = new Set(['wait', 'connecting', 'connect']);

function waitForReady(redis: RedisConnection, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
