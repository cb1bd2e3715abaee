import { deleteExpiredAuthRows } from '@webpush/db';
import type { WorkerContext } from '../context.js';

export interface AuthCleanup {
  /** One pass now; resolves to the rows removed. */
  runOnce(): Promise<{ sessions: number; accountTokens: number }>;
  stop(): Promise<void>;
}

/**
 * Removes expired sessions and expired or used account tokens every `CLEANUP_INTERVAL_MS`. A timer
 * in every worker, like the reconciler: it survives restarts and Redis flushes because it keeps no
 * state, and several workers running it at once only find less to delete (an idempotent DELETE …
 * WHERE expires_at < now(), in batches so no pass holds many locks for long).
 */
export function startAuthCleanup(context: WorkerContext): AuthCleanup {
  const { db, config, log } = context;

  async function runOnce() {
    const removed = await deleteExpiredAuthRows(db);
    if (removed.sessions > 0 || removed.accountTokens > 0) log.info(removed, 'removed expired sessions and tokens');
    return removed;
  }

  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      runOnce().catch((error: unknown) => log.error({ err: error }, 'auth cleanup failed; retrying next interval')),
    );
  }, config.cleanupIntervalMs);
  timer.unref();

  return {
    runOnce: () => {
      const pass = running.then(runOnce);
      running = pass.catch(() => undefined);
      return pass;
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
