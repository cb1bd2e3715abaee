import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnreachable } from '@webpush/db';

/** How long, and how often, a write is tried again while PostgreSQL cannot be reached. */
export interface OutageRetryPolicy {
  /** No new try starts later than this after the first one; then the last error is thrown. */
  readonly totalMs: number;
  /** The wait before the second try, doubled before each next one (±20 % jitter)… */
  readonly firstDelayMs: number;
  /** …up to this. */
  readonly maxDelayMs: number;
}

/** A minute covers a restart and most managed failovers; chunk jobs keep their locks through Redis meanwhile. */
export const defaultOutageRetry: OutageRetryPolicy = { totalMs: 60_000, firstDelayMs: 100, maxDelayMs: 2_000 };

/**
 * Runs `operation`, and again with backoff while it fails because PostgreSQL is unreachable and
 * `policy` allows; any other error is thrown at once. Only for idempotent operations: a statement
 * whose answer was lost may have committed.
 */
export async function retryWhileDatabaseAway<T>(
  operation: () => Promise<T>,
  policy: OutageRetryPolicy,
  onRetry?: (error: unknown, retry: number) => void,
): Promise<T> {
  const deadline = Date.now() + policy.totalMs;
  for (let retry = 1; ; retry++) {
    try {
      return await operation();
    } catch (error) {
      const backoff = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (retry - 1));
      const delay = Math.round(backoff * (0.8 + Math.random() * 0.4));
      if (!isDatabaseUnreachable(error) || Date.now() + delay > deadline) throw error;
      onRetry?.(error, retry);
      await sleep(delay);
    }
  }
}
