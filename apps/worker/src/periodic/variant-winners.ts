import { type ChosenWinner, chooseDueWinner } from '@webpush/db';
import { enqueueFanOut } from '@webpush/queue';
import type { WorkerContext } from '../context.js';
import { type PeriodicTask, startPeriodicTask } from './periodic-task.js';

/** Winners chosen per pass at most; the rest on the next pass. */
const BATCH = 200;

export type WinnerPass = PeriodicTask<ChosenWinner[]>;

/**
 * Chooses the winners of A/B tests whose sample has had its minutes (docs/engagement.md), on the
 * scheduler's interval and in the same way: PostgreSQL holds `winner_at`, every worker polls it,
 * and each choice is one transaction that claims its row, so a restart of every process or a Redis
 * that lost its data only delays it. The rest of the targets is planned by a fan-out queued after
 * the choice commits; if that queueing fails, the reconciler queues it.
 */
export function startWinnerPass(context: WorkerContext): WinnerPass {
  const { db, queues, config, log } = context;

  async function runOnce(): Promise<ChosenWinner[]> {
    const chosen: ChosenWinner[] = [];
    while (chosen.length < BATCH) {
      const test = await chooseDueWinner(db);
      if (!test) break;
      chosen.push(test);
      log.info({ notificationId: test.id, winner: test.winner }, 'A/B test winner chosen');
      if (test.status === 'queued' || test.status === 'sending') {
        await enqueueFanOut(queues.fanOut, test.id).catch((error: unknown) =>
          log.error({ err: error, notificationId: test.id }, 'could not queue the fan-out; the reconciler will'),
        );
      }
    }
    return chosen;
  }

  return startPeriodicTask('variant winners', config.delivery.schedulerIntervalMs, runOnce, log);
}
