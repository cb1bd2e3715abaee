import { createNotificationPartitions, deleteExpiredData, foldAppDayStats, type RetentionRemoved } from '@webpush/db';
import type { WorkerContext } from '../context.js';
import { type PeriodicTask, startPeriodicTask } from './periodic-task.js';

/** Month partitions of the notifications (and the tables beside them) kept ready beyond the current one. */
const PARTITIONS_AHEAD = 2;

/**
 * Deletes what the retention policy no longer keeps (`RETENTION_DAYS`, `WEBHOOK_RETENTION_DAYS`,
 * `EXPIRED_SUBSCRIPTION_RETENTION_DAYS`) every `CLEANUP_INTERVAL_MS`, in batches of `RETENTION_BATCH` rows. A timer in every worker, like
 * the session clean-up: several workers at once only find less to delete. Each pass first makes sure
 * the month partitions of the notifications, their chunks, answers, local-time groups and
 * engagement events exist for this month and the next two (docs/operations.md).
 */
export function startRetention(context: WorkerContext): PeriodicTask<RetentionRemoved> {
  const { db, config, log } = context;
  return startPeriodicTask(
    'retention',
    config.cleanupIntervalMs,
    async () => {
      const made = await createNotificationPartitions(db, PARTITIONS_AHEAD);
      if (made > 0) log.info({ months: made }, 'notification partitions created');
      const removed = await deleteExpiredData(db, config.retention);
      if (Object.values(removed).some((count) => count > 0)) log.info(removed, 'retention removed old data');
      // Not retention: the per-day history is kept, each past day folded into one row.
      await foldAppDayStats(db, config.retention.batchSize);
      return removed;
    },
    log,
  );
}
