import { deleteUnusedRetiredVapidKeys } from '@webpush/db';
import type { WorkerContext } from '../context.js';
import { type PeriodicTask, startPeriodicTask } from './periodic-task.js';

export type RetiredVapidKeyCleanup = PeriodicTask<number>;

/**
 * A retired key is kept at least this long after its rotation, so a subscribe that named it a moment
 * ago, or a chunk about to sign with it, is not raced by its deletion.
 */
export const RETIRED_KEY_MIN_AGE_MS = 60 * 60 * 1000;

/**
 * Every CLEANUP_INTERVAL_MS, deletes the retired VAPID keys that no active subscription uses any
 * more (each browser subscribed again with the current key, or expired). Idempotent: several
 * workers running it at once only find less to delete.
 */
export function startRetiredVapidKeyCleanup(context: WorkerContext): RetiredVapidKeyCleanup {
  const { db, config, log } = context;
  async function runOnce(): Promise<number> {
    const deleted = await deleteUnusedRetiredVapidKeys(db, RETIRED_KEY_MIN_AGE_MS);
    if (deleted > 0) log.info({ deleted }, 'deleted retired VAPID keys no active subscription uses');
    return deleted;
  }
  return startPeriodicTask('retired VAPID key cleanup', config.cleanupIntervalMs, runOnce, log);
}
