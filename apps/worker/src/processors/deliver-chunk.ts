import {
  type ChunkOutcome,
  type DeliverableSubscription,
  deliverableSubscriptions,
  isChunkSettled,
  loadDeliveryContext,
  type NotificationPayload,
  recordChunkOutcome,
} from '@webpush/db';
import type { PushOptions, PushOutcome, VapidCredentials } from '@webpush/push';
import type { DeliveryChunkJob } from '@webpush/queue';
import { queueChunks } from '../chunk-jobs.js';
import type { WorkerContext } from '../context.js';
import { mapConcurrent } from '../map-concurrent.js';
import { VapidKeyUnavailableError } from '../vapid-keyring.js';

export type ChunkResult = 'recorded' | 'duplicate' | 'gone';

/**
 * The JSON the browser receives, fields in the contract's order (jsonb does not keep key order),
 * and the notification's id, which the service worker reports engagement events with.
 */
export function serializePayload(payload: NotificationPayload, id: string): string {
  const { title, body, url, icon, badge } = payload;
  return JSON.stringify({ title, body, url, icon, badge, id });
}

/**
 * When a retry may go out: exponential backoff from `retryBaseMs` (with ±20 % jitter so retries of
 * many chunks spread out), never before the push service's Retry-After, never later than `retryMaxMs`.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number,
  { retryBaseMs, retryMaxMs }: { retryBaseMs: number; retryMaxMs: number },
): number {
  const backoff = retryBaseMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
  return Math.min(retryMaxMs, Math.max(retryAfterMs, backoff));
}

/**
 * Sends one chunk and records its outcome once. 201/202 → sent; 404/410 → the subscription expires;
 * 429/5xx/network → sent again later as the next attempt (until the last attempt, then failed);
 * anything else → failed. Nothing is written per push: the chunk's counts land in one transaction
 * at the end, so a worker killed mid-chunk has recorded nothing and the chunk runs again in full
 * (at-least-once: only the pushes of in-flight chunks can arrive twice).
 */
export async function deliverChunk(context: WorkerContext, job: DeliveryChunkJob): Promise<ChunkResult> {
  const { db, config, log, metrics } = context;
  const key = {
    notificationId: job.notificationId,
    firstSubscriptionId: job.firstSubscriptionId,
    attempt: job.attempt,
  };
  if (await isChunkSettled(db, key)) {
    metrics.chunks.inc({ result: 'duplicate' });
    return 'duplicate';
  }
  const delivery = await loadDeliveryContext(db, job.notificationId);
  if (!delivery) return 'gone';

  // Targets that expired or were removed since the fan-out are not sent to: they count as expired.
  const subscriptions = await deliverableSubscriptions(db, delivery.app.id, job.subscriptionIds);
  const vanished = job.subscriptionIds.length - subscriptions.length;

  let vapid: VapidCredentials | null = null;
  try {
    vapid = context.keyring.credentialsFor(delivery.app);
  } catch (error) {
    if (!(error instanceof VapidKeyUnavailableError)) throw error;
    log.error({ err: error, notificationId: job.notificationId }, 'cannot sign pushes: the chunk counts as failed');
  }

  const options: PushOptions = { ttl: delivery.notification.ttl, urgency: delivery.notification.urgency };
  if (delivery.notification.topic !== null) options.topic = delivery.notification.topic;
  const payload = serializePayload(delivery.notification.payload, delivery.notification.id);
  const send = async (subscription: DeliverableSubscription): Promise<PushOutcome> => {
    if (!vapid) return { kind: 'failed', reason: 'VAPID key unavailable' };
    const started = performance.now();
    const outcome = await context.sender
      .send(
        { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
        payload,
        vapid,
        options,
      )
      .catch(
        (error: unknown): PushOutcome => ({
          kind: 'retry',
          reason: error instanceof Error ? error.message : 'send threw',
        }),
      );
    metrics.pushes.inc({ outcome: outcome.kind });
    metrics.pushDuration.observe({ outcome: outcome.kind }, (performance.now() - started) / 1000);
    return outcome;
  };
  const outcomes = await mapConcurrent(subscriptions, config.delivery.pushConcurrency, send);

  const tally = tallyOutcomes(subscriptions, outcomes, job.attempt < config.delivery.maxAttempts);
  const outcome: ChunkOutcome = {
    sent: tally.sent,
    failed: tally.failed,
    expired: tally.expiredIds.length + vanished,
    expiredSubscriptionIds: tally.expiredIds,
    retry:
      tally.retryIds.length === 0
        ? null
        : {
            subscriptionIds: tally.retryIds,
            notBefore: new Date(Date.now() + retryDelayMs(job.attempt, tally.retryAfterMs, config.delivery)),
          },
  };
  const { recorded, retryChunk } = await recordChunkOutcome(db, { ...key, appId: delivery.app.id }, outcome);
  metrics.chunks.inc({ result: recorded ? 'recorded' : 'duplicate' });
  if (retryChunk) await queueChunks(context.queues, [retryChunk]);
  if (tally.failed > 0 || retryChunk) {
    const { sent, failed, expired } = outcome;
    const retrying = retryChunk?.subscriptionIds.length ?? 0;
    log.info(
      { notificationId: job.notificationId, attempt: job.attempt, sent, failed, expired, retrying },
      'chunk had failures',
    );
  }
  return recorded ? 'recorded' : 'duplicate';
}

interface Tally {
  sent: number;
  failed: number;
  expiredIds: string[];
  retryIds: string[];
  retryAfterMs: number;
}

function tallyOutcomes(
  subscriptions: readonly DeliverableSubscription[],
  outcomes: readonly PushOutcome[],
  mayRetry: boolean,
): Tally {
  const tally: Tally = { sent: 0, failed: 0, expiredIds: [], retryIds: [], retryAfterMs: 0 };
  outcomes.forEach((outcome, index) => {
    const id = subscriptions[index]?.id;
    if (id === undefined) return;
    switch (outcome.kind) {
      case 'sent':
        tally.sent++;
        break;
      case 'expired':
        tally.expiredIds.push(id);
        break;
      case 'failed':
        tally.failed++;
        break;
      case 'retry':
        if (!mayRetry) {
          tally.failed++;
          break;
        }
        tally.retryIds.push(id);
        tally.retryAfterMs = Math.max(tally.retryAfterMs, outcome.retryAfterMs ?? 0);
        break;
    }
  });
  return tally;
}
