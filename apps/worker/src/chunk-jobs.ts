import type { DeliveryChunk } from '@webpush/db';
import { chunkJobId, type DeliveryChunkJob, jobNames, type Queues } from '@webpush/queue';

/** BullMQ takes at most this many jobs per `addBulk` here, to keep one Redis call bounded. */
const ADD_BULK_LIMIT = 1_000;

const jobFor = (chunk: DeliveryChunk, now: number) => ({
  name: jobNames.deliverChunk,
  data: {
    notificationId: chunk.notificationId,
    appId: chunk.appId,
    firstSubscriptionId: chunk.firstSubscriptionId,
    attempt: chunk.attempt,
    subscriptionIds: chunk.subscriptionIds,
  } satisfies DeliveryChunkJob,
  opts: { jobId: chunkJobId(chunk), delay: Math.max(0, chunk.notBefore.getTime() - now) },
});

/**
 * Queues delivery chunks. Job ids are deterministic, so queueing a chunk whose job already waits
 * is a no-op in Redis, and a chunk counted in PostgreSQL is skipped by the processor anyway.
 */
export async function queueChunks(queues: Queues, chunks: readonly DeliveryChunk[]): Promise<void> {
  const now = Date.now();
  for (let start = 0; start < chunks.length; start += ADD_BULK_LIMIT) {
    await queues.deliveries.addBulk(chunks.slice(start, start + ADD_BULK_LIMIT).map((chunk) => jobFor(chunk, now)));
  }
}

/**
 * Queues again the planned chunks that Redis no longer has in flight: lost (flush, restart without
 * persistence) or given up on (failed). Chunks still waiting, delayed or active are left alone.
 */
export async function requeueChunks(queues: Queues, chunks: readonly DeliveryChunk[]): Promise<number> {
  const missing: DeliveryChunk[] = [];
  for (const chunk of chunks) {
    const id = chunkJobId(chunk);
    const state = await queues.deliveries.getJobState(id);
    if (state === 'failed' || state === 'completed') await (await queues.deliveries.getJob(id))?.remove();
    if (state === 'unknown' || state === 'failed' || state === 'completed') missing.push(chunk);
  }
  await queueChunks(queues, missing);
  return missing.length;
}
