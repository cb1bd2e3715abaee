import { plannedRetryChunk, recordChunkOutcome } from '@webpush/db';
import { type OutageRetryPolicy, retryWhileDatabaseAway } from './database-outage.js';

type Written = Parameters<typeof recordChunkOutcome>;
type Outcome = Awaited<ReturnType<typeof recordChunkOutcome>>;

/** What {@link recordChunkOutcome} writes, by name. */
export interface ChunkOutcomeWrite {
  db: Written[0];
  chunk: Written[1];
  last: Written[2];
  vanished: Written[3];
  retryNotBefore: Written[4];
  failureReasons: Written[5];
  refusals: Written[6];
  failureDetails?: Written[7];
  skipped?: Written[8];
}

/**
 * Records a chunk's outcome ({@link recordChunkOutcome}), trying again while PostgreSQL is
 * unreachable rather than failing the job, whose re-run would send the answers not written yet.
 * The transaction is all or nothing, so a try after a failure either writes it or finds the chunk
 * counted; the latter may be this run's own, if the failed try committed and only its answer was
 * lost. The counts were then added once, and the retry chunk that try planned is handed back to be
 * queued (job ids are the chunks' keys: a no-op if another run queued it already).
 */
export async function recordChunkOutcomeThroughOutage(
  write: ChunkOutcomeWrite,
  policy: OutageRetryPolicy,
  onRetry?: (error: unknown, retry: number) => void,
): Promise<Outcome> {
  let failedOnce = false;
  const outcome = await retryWhileDatabaseAway(
    () =>
      recordChunkOutcome(
        write.db,
        write.chunk,
        write.last,
        write.vanished,
        write.retryNotBefore,
        write.failureReasons,
        write.refusals,
        write.failureDetails,
        write.skipped,
      ),
    policy,
    (error, retry) => {
      failedOnce = true;
      onRetry?.(error, retry);
    },
  );
  if (outcome.recorded || !failedOnce) return outcome;
  const retryChunk = await retryWhileDatabaseAway(() => plannedRetryChunk(write.db, write.chunk), policy, onRetry);
  return { ...outcome, retryChunk };
}
