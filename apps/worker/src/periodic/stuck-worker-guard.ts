import type { Queue, Worker } from 'bullmq';
import type { Logger } from 'pino';

export interface GuardedWorker {
  /** The BullMQ worker in service now (a new one after a replacement). */
  current(): Worker;
  /** Replacements so far. */
  readonly replacements: number;
  /** Looks at the queue so far (for tests). */
  readonly checks: number;
  close(force?: boolean): Promise<void>;
}

export interface GuardOptions {
  /** How often the queue is looked at. */
  checkMs: number;
  /**
   * How long jobs may wait while this worker runs none before it counts as stuck: longer than the
   * longest block of an idle BullMQ worker (10 s) plus its watchdog.
   */
  stuckMs: number;
  log: Logger;
  /** Called with every new worker, to attach listeners. */
  onWorker?: (worker: Worker) => void;
  /** How long `close()` waits for the worker to close before it drops its connections. */
  closeTimeoutMs?: number;
}

/**
 * Closes a BullMQ worker, waiting at most `timeoutMs`: a worker whose blocking command never
 * settles never finishes closing. After that its connections are dropped; a job it was still
 * running loses its lock and another worker takes it over, as after a crash.
 */
async function closeWithin(worker: Worker, force: boolean, timeoutMs: number, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), timeoutMs);
  });
  const closed = worker.close(force).then(
    () => false,
    (error: unknown) => {
      log.warn({ err: error, queue: worker.name }, 'closing a queue worker failed');
      return false;
    },
  );
  if (await Promise.race([closed, timedOut])) {
    log.warn({ queue: worker.name, timeoutMs }, 'queue worker did not close in time: dropping its connections');
    await worker.disconnect().catch(() => undefined);
  }
  clearTimeout(timer);
}

/**
 * Keeps a BullMQ worker taking jobs: after a Redis Cluster failover an idle worker's blocking
 * connection can stop taking jobs for good while its queue fills (docs/redis-cluster.md). When jobs
 * have waited `stuckMs` while this worker ran and started none, it is replaced by a fresh one. A
 * worker with jobs running is never replaced, so nothing in flight is cut short.
 */
export function guardWorker(create: () => Worker, queue: Queue, options: GuardOptions): GuardedWorker {
  let worker: Worker;
  let running = 0;
  let lastStart = Date.now();
  let waitingSince: number | null = null;
  let replacements = 0;
  let checks = 0;
  let closed = false;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const retired: Promise<void>[] = [];

  const start = () => {
    const fresh = create();
    fresh.on('active', () => {
      running++;
      lastStart = Date.now();
    });
    const done = () => {
      running = Math.max(0, running - 1);
    };
    fresh.on('completed', done);
    fresh.on('failed', done);
    options.onWorker?.(fresh);
    running = 0;
    lastStart = Date.now();
    waitingSince = null;
    return fresh;
  };
  worker = start();

  let checking = false;
  const timer = setInterval(async () => {
    if (checking || closed) return;
    checking = true;
    try {
      const counts = await queue.getJobCounts('waiting', 'prioritized');
      checks++;
      const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
      const now = Date.now();
      if (waiting === 0 || running > 0) {
        waitingSince = null;
        return;
      }
      waitingSince ??= now;
      if (now - waitingSince < options.stuckMs || now - lastStart < options.stuckMs) return;
      const stuck = worker;
      options.log.warn(
        { queue: stuck.name, waiting, waitingForMs: now - waitingSince },
        'queue worker took no job while jobs waited: replacing it',
      );
      replacements++;
      worker = start();
      // The stuck worker may never finish closing: do not wait for it.
      void stuck
        .close(true)
        .catch((error: unknown) => options.log.warn({ err: error }, 'closing a stuck worker failed'));
    } catch {
      // Redis unreachable: nothing to judge; the next check tries again.
    } finally {
      checking = false;
    }
  }, options.checkMs);
  timer.unref();

  return {
    current: () => worker,
    get replacements() {
      return replacements;
    },
    get checks() {
      return checks;
    },
    async close(force = false) {
      closed = true;
      clearInterval(timer);
      await Promise.all([closeWithin(worker, force, closeTimeoutMs, options.log), ...retired]);
    },
  };
}
