import type { ChunkKey, DeliveryChunk } from '@webpush/db';
import { chunkJobId, type DeliveryChunkJob, jobNames, type Queues } from '@webpush/queue';

/** BullMQ takes at most this many jobs per `addBulk` here, to keep one Redis call bounded. */
const ADD_BULK_LIMIT = 1_000;
/** Job states asked of Redis at once when a fan-out re-runs. */
const STATE_BATCH = 200;

/** BullMQ's highest priority number (2^21); Redis and PostgreSQL queues alike. */
const MAX_PRIORITY = 2_097_152;

/**
 * Fair delivery across apps: a send's first chunk has no priority, its later chunks the priority of
 * their rank in the send (2nd → 1, 3rd → 2, …). Both queue backends take jobs without a priority
 * before prioritized ones, and prioritized ones lowest number first, so every send's first chunk
 * (all of a small send) goes ahead of the rest of a large one, and two large sends take turns
 * chunk by chunk instead of the later waiting for the whole of the earlier.
 */
const priorityOf = (rank: number) => (rank <= 0 ? undefined : Math.min(rank, MAX_PRIORITY));

const jobFor = (chunk: DeliveryChunk, now: number, rank: number) => ({
  name: jobNames.deliverChunk,
  data: {
    notificationId: chunk.notificationId,
    appId: chunk.appId,
    firstSubscriptionId: chunk.firstSubscriptionId,
    attempt: chunk.attempt,
    subscriptionIds: chunk.subscriptionIds,
  } satisfies DeliveryChunkJob,
  opts: {
    jobId: chunkJobId(chunk),
    delay: Math.max(0, chunk.notBefore.getTime() - now),
    priority: priorityOf(rank),
  },
});

/**
 * Queues delivery chunks. Job ids are deterministic, so queueing a chunk whose job already waits
 * is a no-op in Redis, and a chunk counted in PostgreSQL is skipped by the processor anyway.
 * `firstRank`: the rank of `chunks[0]` among its send's chunks (0 for its first), which sets the
 * jobs' priorities (see `priorityOf`).
 */
export async function queueChunks(queues: Queues, chunks: readonly DeliveryChunk[], firstRank = 0): Promise<void> {
  const now = Date.now();
  for (let start = 0; start < chunks.length; start += ADD_BULK_LIMIT) {
    await queues.deliveries.addBulk(
      chunks.slice(start, start + ADD_BULK_LIMIT).map((chunk, i) => jobFor(chunk, now, firstRank + start + i)),
    );
  }
}

/**
 * Queues again the planned chunks that Redis no longer has in flight: lost (flush, restart without
 * persistence) or given up on (failed). Chunks still waiting, delayed or active are left alone.
 * Reading the state before the add races nothing: a job id is the chunk's key and BullMQ's add of
 * an existing id is a no-op, so there is never a second copy, and a chunk that finished meanwhile
 * is settled in PostgreSQL (`startChunk`) and sends nothing.
 */
export async function requeueChunks(
  queues: Queues,
  keys: readonly ChunkKey[],
  load: (missing: ChunkKey[]) => Promise<DeliveryChunk[]>,
): Promise<number> {
  const missing: ChunkKey[] = [];
  // Job states are read STATE_BATCH at a time: a big notification has thousands of pending chunks.
  for (let start = 0; start < keys.length; start += STATE_BATCH) {
    const batch = keys.slice(start, start + STATE_BATCH);
    const states = await Promise.all(batch.map((key) => queues.deliveries.getJobState(chunkJobId(key))));
    for (const [index, key] of batch.entries()) {
      const state = states[index];
      if (state === 'failed' || state === 'completed') await removeFinished(queues, chunkJobId(key));
      if (state === 'unknown' || state === 'failed' || state === 'completed') missing.push(key);
    }
  }
  // Subscription ids are read only for what is re-queued (after a Redis flush: everything).
  // Ranked after a first chunk: what a re-run re-queues is the rest of a send under way.
  for (let start = 0; start < missing.length; start += ADD_BULK_LIMIT) {
    await queueChunks(queues, await load(missing.slice(start, start + ADD_BULK_LIMIT)), start + 1);
  }
  return missing.length;
}

/** Removes a finished (failed or kept completed) job; a job that is active again is left alone. */
async function removeFinished(queues: Queues, id: string): Promise<void> {
  const job = await queues.deliveries.getJob(id);
  if (!job) return;
  const state = await job.getState();
  if (state !== 'failed' && state !== 'completed') return;
  // BullMQ refuses to remove a locked job; between the two calls it can have been retried.
  await job.remove().catch(() => undefined);
}
