import { repairSubscriberCounters, type SubscriberCountDrift } from '@webpush/db';
import type { WorkerContext } from '../context.js';
import { type PeriodicTask, startPeriodicTask } from './periodic-task.js';

export type SubscriberCountCheck = PeriodicTask<SubscriberCountDrift[]>;

/**
 * Every SUBSCRIBER_COUNT_CHECK_INTERVAL_MS, compares each owner's active-subscriber counter (what
 * POST /subscribe checks the plan limit against) with a real count, and repairs any difference. The
 * counter is moved in the same statement as every change it counts, so a drift means a write that
 * bypassed the repositories (a manual fix in SQL, a restored backup): each is logged as a warning.
 * Several workers running it at once only repeat each other: a repair is done under the counter's lock.
 */
export function startSubscriberCountCheck(context: WorkerContext): SubscriberCountCheck {
  const { db, config, log } = context;

  async function runOnce(): Promise<SubscriberCountDrift[]> {
    const repaired = await repairSubscriberCounters(db);
    for (const drift of repaired) {
      log.warn(
        { ownerId: drift.ownerId, counter: drift.counter, real: drift.real },
        'subscriber counter drifted from the real count; repaired',
      );
    }
    return repaired;
  }

  return startPeriodicTask('subscriber count check', config.subscriberCountCheckIntervalMs, runOnce, log);
}
