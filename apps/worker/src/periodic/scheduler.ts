import { type NotificationPayload, type PushFormat, type StartedSend, startDueScheduledSend } from '@webpush/db';
import { limitsFor } from '@webpush/plans';
import { deliveredContents, deliveredPayloadBytes, MAX_BROWSER_PAYLOAD_BYTES } from '@webpush/push';
import { enqueueFanOut } from '@webpush/queue';
import type { WorkerContext } from '../context.js';
import { clickLinkBase } from '../delivery/browser-payload.js';
import { startPeriodicTask } from './periodic-task.js';

/** Sends started per pass at most; the rest on the next pass (a pass repeats at once when this is reached). */
const BATCH = 200;

export interface Scheduler {
  /** One pass now; resolves to the sends it started (queued, completed with no targets, or failed). */
  runOnce(): Promise<StartedSend[]>;
  stop(): Promise<void>;
}

/**
 * Starts scheduled sends when they are due (docs/sending.md). PostgreSQL is the record:
 * every worker polls it on a timer, like the reconciler, so a restart of every process or a Redis
 * that lost its data delays nothing; no delayed BullMQ job is needed (or trusted). Each start is
 * one transaction that claims the row with `FOR UPDATE SKIP LOCKED`, so several workers share the
 * due sends and never start one twice. The fan-out is queued after that commits, exactly as the
 * API does for an immediate send; a crash in between leaves a `queued` row the reconciler re-queues.
 */
export function startScheduler(context: WorkerContext): Scheduler {
  const { db, queues, config, log } = context;
  const sendsPerMonthFor = (plan: string) => limitsFor(plan).sendsPerMonth;
  // The 3,993-byte rule again, for the app's push format as it is now (it may have switched to
  // declarative, whose click links make the payload bigger, since the send was accepted).
  const linkBase = clickLinkBase(config.publicUrl);
  // Each translation and each variant is delivered to someone: every one must fit.
  const payloadFits = (payload: NotificationPayload, pushFormat: PushFormat) =>
    deliveredContents(payload).every(
      (content) => deliveredPayloadBytes(content, pushFormat, linkBase) <= MAX_BROWSER_PAYLOAD_BYTES,
    );

  async function runOnce(): Promise<StartedSend[]> {
    const started: StartedSend[] = [];
    while (started.length < BATCH) {
      const send = await startDueScheduledSend(db, sendsPerMonthFor, payloadFits);
      if (!send) break;
      started.push(send);
      if (send.status === 'queued') {
        await enqueueFanOut(queues.fanOut, send.id).catch((error: unknown) =>
          log.error({ err: error, notificationId: send.id }, 'could not queue the fan-out; the reconciler will'),
        );
      }
      if (send.errorCode === 'PAYLOAD_TOO_LARGE')
        log.warn(
          { notificationId: send.id, errorCode: send.errorCode },
          'scheduled send not started: its payload is over 3,993 bytes in the app’s push format now',
        );
      log.info(
        { notificationId: send.id, status: send.status, targets: send.targets, errorCode: send.errorCode },
        'scheduled send started',
      );
    }
    return started;
  }

  return startPeriodicTask('scheduler', config.delivery.schedulerIntervalMs, runOnce, log);
}
