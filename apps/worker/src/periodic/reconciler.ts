import { findStalledNotifications } from '@webpush/db';
import { requeueFanOut } from '@webpush/queue';
import type { WorkerContext } from '../context.js';
import { startPeriodicTask } from './periodic-task.js';

/** Notifications looked at per pass; the oldest first, the rest on the next pass. */
const BATCH = 500;

export interface Reconciler {
  /** One pass now; resolves to the number of notifications queued again. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * PostgreSQL is the record, Redis only carries work (docs/architecture.md). Every interval, each
 * unfinished notification that has not moved for a while and has no fan-out job in flight gets a
 * fresh fan-out job, which re-queues its uncounted chunks and finishes its plan. That covers a
 * Redis flush or restart without persistence, an API that committed but could not queue, and jobs
 * that gave up. It runs on a timer in every worker, not as a repeatable job, because a repeatable
 * job would be lost with the very Redis data it is meant to recover; passes are idempotent, so
 * several workers doing it at once only repeat each other.
 */
export function startReconciler(context: WorkerContext): Reconciler {
  const { db, queues, config, log, metrics } = context;
  const staleSeconds = config.delivery.reconcileStaleMs / 1000;

  async function runOnce(): Promise<number> {
    let requeued = 0;
    for (const notificationId of await findStalledNotifications(db, staleSeconds, BATCH)) {
      if (!(await requeueFanOut(queues.fanOut, notificationId))) continue;
      requeued++;
    }
    if (requeued > 0) {
      metrics.requeued.inc(requeued);
      log.warn({ notifications: requeued }, 'reconciler re-queued unfinished notifications');
    }
    return requeued;
  }

  return startPeriodicTask('reconciler', config.delivery.reconcileIntervalMs, runOnce, log);
}
