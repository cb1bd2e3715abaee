import { type StartedSend, startDueScheduledSend } from '@webpush/db';
import { limitsFor } from '@webpush/plans';
import { enqueueFanOut } from '@webpush/queue';
import type { WorkerContext } from './context.js';
import { startPeriodicTask } from './periodic-task.js';

/** Sends started per pass at most; the rest on the next pass (a pass repeats at once when this is reached). */
const BATCH = 200;

export interface Scheduler {
  /** One pass now; resolves to the sends it started (queued, completed with no targets, or failed). */
  runOnce(): Promise<StartedSend[]>;
  stop(): Promise<void>;
}

/**
 * Starts scheduled sends when they are due (CONTRACT "Scheduled sends"). PostgreSQL is the record:
 * every worker polls it on a timer, like the reconciler, so a restart of every process or a Redis
 * that lost its data delays nothing; no delayed BullMQ job is needed (or trusted). Each start is
 * one transaction that claims the row with `FOR UPDATE SKIP LOCKED`, so several workers share the
 * due sends and never start one twice. The fan-out is queued after that commits, exactly as the
 * API does for an immediate send; a crash in between leaves a `queued` row the reconciler re-queues.
 */
export function startScheduler(context: WorkerContext): Scheduler {
  const { db, queues, config, log } = context;
  const sendsPerMonthFor = (plan: string) => limitsFor(plan).sendsPerMonth;

  async function runOnce(): Promise<StartedSend[]> {
    const started: StartedSend[] = [];
    while (started.length < BATCH) {
      const send = await startDueScheduledSend(db, sendsPerMonthFor);
      if (!send) break;
      started.push(send);
      if (send.status === 'queued') {
        await enqueueFanOut(queues.fanOut, send.id).catch((error: unknown) =>
          log.error({ err: error, notificationId: send.id }, 'could not queue the fan-out; the reconciler will'),
        );
      }
      log.info({ notificationId: send.id, status: send.status, targets: send.targets }, 'scheduled send started');
    }
    return started;
  }

  return startPeriodicTask('scheduler', config.delivery.schedulerIntervalMs, runOnce, log);
}
