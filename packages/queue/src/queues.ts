import type { DefaultJobOptions, Queue, Telemetry } from 'bullmq';
import { newQueue, type QueueTransport } from './backend.js';

export const queueNames = {
  fanOut: 'fan-out',
  deliveries: 'deliveries',
  webhooks: 'webhooks',
} as const;

export type QueueName = (typeof queueNames)[keyof typeof queueNames];

export interface FanOutJob {
  notificationId: string;
}

/** Identified in PostgreSQL by (notificationId, firstSubscriptionId, attempt), where its outcome is recorded once. */
export interface DeliveryChunkJob {
  notificationId: string;
  appId: string;
  firstSubscriptionId: string;
  attempt: number;
  subscriptionIds: string[];
}

export interface WebhookJob {
  messageId: string;
  /**
   * Attempts already made by the jobs this one continues: on the PostgreSQL backend a deferred
   * delivery goes back on the queue as a new job (see apps/worker/src/webhooks/delivery.ts).
   */
  attemptsBefore?: number;
}

export const jobNames = {
  fanOut: 'fan-out',
  deliverChunk: 'deliver-chunk',
  deliverWebhook: 'deliver-webhook',
} as const;

/** BullMQ job ids may not contain `:`; uuids never contain `_`. */
export const fanOutJobId = (notificationId: string): string => notificationId;
export const chunkJobId = (job: Pick<DeliveryChunkJob, 'notificationId' | 'firstSubscriptionId' | 'attempt'>): string =>
  `${job.notificationId}_${job.firstSubscriptionId}_${job.attempt}`;

/**
 * Retry policy for a job that throws (PostgreSQL unreachable, a bug). Push-service retries (429,
 * 5xx) are not job retries: they become a new chunk with the next `attempt`, so only the pushes that
 * need it are sent again. Failed jobs are kept a day for Bull Board; PostgreSQL is the record.
 */
export const defaultJobOptions: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600, count: 10_000 },
};

/**
 * Retry policy of webhook deliveries: exponential, `backoffMs × 2^(n-1)` before retry n. The
 * defaults (12 attempts, 60 s) wait 60 s × (2^11 − 1) ≈ 34 h in all before giving up, more than
 * the 24 hours receivers are promised. Failed jobs are kept a week for Bull Board.
 */
export function webhookJobOptions(
  settings: { maxAttempts: number; backoffMs: number },
  attemptsBefore = 0,
): DefaultJobOptions {
  return {
    // A job continuing earlier attempts has the rest of them, and its backoff goes on doubling.
    attempts: Math.max(1, settings.maxAttempts - attemptsBefore),
    backoff: { type: 'exponential', delay: settings.backoffMs * 2 ** attemptsBefore },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

const IN_FLIGHT = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/**
 * Adds a job under its stable id unless one of that id is already waiting, delayed or running. A
 * finished job of that id is removed first, or BullMQ would ignore the new one; BullMQ refuses to
 * remove a job taken meanwhile, so this never makes a second copy of a job in flight.
 * `replaceWaiting` also replaces a waiting or delayed job: "send again now" instead of at its next retry.
 */
export async function requeueUnlessInFlight(
  queue: Queue,
  jobId: string,
  add: () => Promise<unknown>,
  options: { replaceWaiting?: boolean } = {},
): Promise<boolean> {
  const state = await queue.getJobState(jobId);
  if (IN_FLIGHT.has(state) && (!options.replaceWaiting || state === 'active')) return false;
  if (state !== 'unknown') await (await queue.getJob(jobId))?.remove().catch(() => undefined);
  await add();
  return true;
}

export function enqueueFanOut(queue: Queue<FanOutJob>, notificationId: string): Promise<unknown> {
  return queue.add(jobNames.fanOut, { notificationId }, { jobId: fanOutJobId(notificationId) });
}

export function requeueFanOut(queue: Queue<FanOutJob>, notificationId: string): Promise<boolean> {
  return requeueUnlessInFlight(queue as Queue, fanOutJobId(notificationId), () => enqueueFanOut(queue, notificationId));
}

/** With `replaceWaiting`, "send again" of an event waiting for its next retry tries now. */
export function queueWebhookMessage(
  queue: Queue<WebhookJob>,
  messageId: string,
  settings: { maxAttempts: number; backoffMs: number },
  options: { replaceWaiting?: boolean; attemptsBefore?: number; delayMs?: number } = {},
): Promise<boolean> {
  const attemptsBefore = options.attemptsBefore ?? 0;
  const data: WebhookJob = attemptsBefore > 0 ? { messageId, attemptsBefore } : { messageId };
  return requeueUnlessInFlight(
    queue as Queue,
    messageId,
    () =>
      queue.add(jobNames.deliverWebhook, data, {
        ...webhookJobOptions(settings, attemptsBefore),
        jobId: messageId,
        ...(options.delayMs ? { delay: options.delayMs } : {}),
      }),
    options,
  );
}

export interface Queues {
  fanOut: Queue<FanOutJob>;
  deliveries: Queue<DeliveryChunkJob>;
  webhooks: Queue<WebhookJob>;
  all(): Queue[];
  close(): Promise<void>;
}

/**
 * The API and the worker must use the same transport (`queueTransport`); a Redis connection is
 * shared, not closed here.
 */
export function createQueues(transport: QueueTransport, options: { telemetry?: Telemetry } = {}): Queues {
  // `telemetry` (bullmq-otel, when tracing is on) carries the trace context of each add into the job.
  const common = { defaultJobOptions, ...(options.telemetry ? { telemetry: options.telemetry } : {}) };
  const fanOut = newQueue<FanOutJob>(queueNames.fanOut, transport, common);
  const deliveries = newQueue<DeliveryChunkJob>(queueNames.deliveries, transport, common);
  const webhooks = newQueue<WebhookJob>(queueNames.webhooks, transport, common);
  return {
    fanOut,
    deliveries,
    webhooks,
    all: () => [fanOut, deliveries, webhooks] as Queue[],
    close: async () => {
      await Promise.all([fanOut.close(), deliveries.close(), webhooks.close()]);
    },
  };
}

export async function queueDepths(queues: Queues): Promise<{ queue: QueueName; state: string; count: number }[]> {
  const depths: { queue: QueueName; state: string; count: number }[] = [];
  for (const [queue, instance] of [
    [queueNames.fanOut, queues.fanOut],
    [queueNames.deliveries, queues.deliveries],
    [queueNames.webhooks, queues.webhooks],
  ] as const) {
    const counts = await instance.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
    for (const [state, count] of Object.entries(counts)) depths.push({ queue, state, count });
  }
  return depths;
}
