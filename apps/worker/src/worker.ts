import type { Config } from '@webpush/config';
import { createDatabase } from '@webpush/db';
import { createPushSender, type PushSender } from '@webpush/push';
import {
  bullPrefix,
  createQueues,
  createRedisConnection,
  type DeliveryChunkJob,
  type FanOutJob,
  queueNames,
} from '@webpush/queue';
import { type Job, Worker, type WorkerOptions } from 'bullmq';
import { type Logger, pino } from 'pino';
import type { Registry } from 'prom-client';
import type { WorkerContext } from './context.js';
import { DependenciesDownError, type Dependency } from './health-server.js';
import { createWorkerMetrics } from './metrics.js';
import { deliverChunk } from './processors/deliver-chunk.js';
import { fanOut } from './processors/fan-out.js';
import { type Reconciler, startReconciler } from './reconciler.js';
import { VapidKeyring } from './vapid-keyring.js';

export interface WorkerDeps {
  /** Defaults to a sender over `config.pushServiceHosts`; tests pass one that trusts their push stand-in. */
  sender?: PushSender;
  log?: Logger;
}

export interface RunningWorker {
  readonly metrics: Registry;
  readonly reconciler: Reconciler;
  /** PostgreSQL and Redis answer. */
  ready(): Promise<void>;
  /** Stops taking jobs, lets the active ones finish, and closes every connection. */
  close(): Promise<void>;
}

/**
 * The delivery worker: BullMQ workers for fan-out and delivery chunks, plus the reconciler. `main.ts`
 * runs it as a process; tests run it in-process against their own database and key prefix.
 */
export async function startWorker(config: Config, deps: WorkerDeps = {}): Promise<RunningWorker> {
  const log = deps.log ?? pino({ level: config.logLevel, base: { service: 'worker' } });
  const database = createDatabase(config.databaseUrl, {
    max: config.delivery.chunkConcurrency + config.delivery.fanOutConcurrency + 2,
  });
  // Workers block on Redis and must never give up on a command (`maxRetriesPerRequest: null`).
  const redis = createRedisConnection(config.redisUrl, 'worker');
  redis.on('error', (error) => log.warn({ err: error }, 'redis connection error'));
  const prefix = bullPrefix(config.redisKeyPrefix);
  const queues = createQueues(redis, prefix);
  const sender =
    deps.sender ??
    createPushSender({ allowlist: config.pushServiceHosts, maxSocketsPerOrigin: config.delivery.pushConcurrency });
  const metrics = createWorkerMetrics(queues, (error) => log.warn({ err: error }, 'queue depth unavailable'));
  const context: WorkerContext = {
    config,
    db: database.db,
    queues,
    sender,
    keyring: new VapidKeyring(config.encryptionKey, config.vapidSubject),
    metrics,
    log,
  };

  const common: WorkerOptions = {
    connection: redis,
    prefix,
    lockDuration: config.delivery.lockDurationMs,
    stalledInterval: config.delivery.stalledIntervalMs,
    // A job whose worker died is retried a few times before it counts as failed; the reconciler
    // covers even that, since the record of what is left lives in PostgreSQL.
    maxStalledCount: 3,
  };
  const workers = [
    new Worker<FanOutJob>(queueNames.fanOut, (job: Job<FanOutJob>) => fanOut(context, job.data), {
      ...common,
      concurrency: config.delivery.fanOutConcurrency,
    }),
    new Worker<DeliveryChunkJob>(
      queueNames.deliveries,
      (job: Job<DeliveryChunkJob>) => deliverChunk(context, job.data),
      {
        ...common,
        concurrency: config.delivery.chunkConcurrency,
      },
    ),
  ];
  for (const worker of workers) {
    worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'worker error'));
    worker.on('failed', (job, error) =>
      log.warn({ err: error, queue: worker.name, jobId: job?.id, attempts: job?.attemptsMade }, 'job failed'),
    );
  }
  for (const queue of queues.all()) queue.on('error', (error) => log.warn({ err: error }, 'queue error'));
  const reconciler = startReconciler(context);

  return {
    metrics: metrics.registry,
    reconciler,
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
          check('redis', async () => {
            if (redis.status !== 'ready') throw new Error(`redis is ${redis.status}`);
            await redis.ping();
          }),
        ])
      ).filter((dependency): dependency is Dependency => dependency !== null);
      if (down.length > 0) throw new DependenciesDownError(down);
    },
    async close() {
      await reconciler.stop();
      // With Redis gone no job can be acknowledged anyway: don't wait for the active ones.
      const force = redis.status !== 'ready';
      await Promise.all(workers.map((worker) => worker.close(force)));
      await queues.close();
      if (!deps.sender) await sender.close();
      // QUIT waits for a connection that may never come back; only a live one is closed politely.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
      await database.close();
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
