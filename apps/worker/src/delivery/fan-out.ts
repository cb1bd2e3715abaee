import { beginFanOut, loadChunks, pendingChunkKeys, planDeliveryChunks } from '@webpush/db';
import type { FanOutJob } from '@webpush/queue';
import { inSpan } from '@webpush/tracing';
import type { WorkerContext } from '../context.js';
import { queueChunks, requeueChunks } from './chunk-jobs.js';

/** Chunks planned per transaction: delivery of the first ones starts while the rest is planned. */
const CHUNKS_PER_PLAN = 20;
/** The first transaction plans a single chunk and queues it at once, so the first push waits for no other. */
const FIRST_PLAN_CHUNKS = 1;

/**
 * Splits a notification into delivery chunks: keyset pages of its targets, planned in PostgreSQL
 * first and queued after, so a crash between the two loses nothing. Safe to run again for the same
 * notification (a stalled job, the reconciler): it re-queues what was planned and is neither
 * counted nor in flight, then continues the plan where it stopped.
 */
export function fanOut(context: WorkerContext, job: FanOutJob): Promise<{ queued: number }> {
  return inSpan('notification.fan_out', { 'webpush.notification_id': job.notificationId }, async (span) => {
    const result = await planAndQueue(context, job);
    span?.setAttribute('webpush.chunks_queued', result.queued);
    return result;
  });
}

async function planAndQueue(context: WorkerContext, job: FanOutJob): Promise<{ queued: number }> {
  const { db, queues, config, log } = context;
  const notification = await beginFanOut(db, job.notificationId);
  if (!notification) return { queued: 0 };

  // A first run has nothing planned yet, hence nothing to re-queue: no query on the first push's path.
  let queued =
    notification.planned === 0 && !notification.fannedOut
      ? 0
      : await requeueChunks(queues, await pendingChunkKeys(db, notification), (keys) =>
          loadChunks(db, notification, keys),
        );
  if (queued > 0) log.warn({ notificationId: notification.id, chunks: queued }, 're-queued delivery chunks');

  if (!notification.fannedOut) {
    // The first chunk holds only as many targets as a chunk sends at once (PUSH_CONCURRENCY): it
    // is quick to plan and load, and still fills every lane.
    const { chunkSize, pushConcurrency } = config.delivery;
    for (let first = true; ; first = false) {
      const { chunks, done } = await planDeliveryChunks(db, notification.id, {
        chunkSize: first ? Math.min(chunkSize, pushConcurrency) : chunkSize,
        maxChunks: first ? FIRST_PLAN_CHUNKS : CHUNKS_PER_PLAN,
      });
      // Ranked by their place in the send: its first chunk goes ahead of other sends' later ones.
      await queueChunks(queues, chunks, queued);
      queued += chunks.length;
      if (done) break;
    }
  }
  log.debug({ notificationId: notification.id, chunks: queued }, 'fan-out done');
  return { queued };
}
