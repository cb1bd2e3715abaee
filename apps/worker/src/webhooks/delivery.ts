import { claimWebhookMessagesToQueue } from '@webpush/db';
import { newWorker, type QueueTransport, queueWebhookMessage, type WebhookJob } from '@webpush/queue';
import { createNameResolver, createWebhookClient } from '@webpush/webhooks';
import { DelayedError, type Job, type WorkerOptions } from 'bullmq';
import type { WorkerContext } from '../context.js';
import { startPeriodicTask } from '../periodic/periodic-task.js';
import { type AppSlots, postgresAppSlots, redisAppSlots } from './app-slots.js';
import { deliverWebhook, WebhookDeferred } from './deliver-webhook.js';
import { createWebhookDisabledNotice } from './disabled-notice.js';
import { createWebhookFairness } from './fairness.js';

/** Outbox rows looked at per relay pass; the oldest first, the rest on the next pass. */
const RELAY_BATCH = 500;
/** Of which one app's at most: apps take turns, so a backlog of one delays no other app's events. */
const RELAY_PER_APP = 50;
/**
 * A slot's lease beyond the attempt's timeout: the attempt also reads its event first, and a lease
 * that ended while its attempt still runs would let one attempt too many start.
 */
const SLOT_LEASE_MARGIN_MS = 5_000;

export interface WebhookDelivery {
  /** One relay pass now: queues outbox events without a job; resolves to how many were queued. */
  relayOnce(): Promise<number>;
  close(force: boolean): Promise<void>;
}

export interface WebhookDeliveryOptions {
  /** Extra trusted CA (tests' local HTTPS receiver); processes use NODE_EXTRA_CA_CERTS. */
  ca?: string;
}

/**
 * Webhook delivery in the worker: a BullMQ worker on the `webhooks` queue, and the relay, a
 * periodic task (a timer like the reconciler's, so it survives a loss of Redis data) that turns
 * every pending outbox event without a job into one: new events (the transaction that writes an
 * event never queues it) and events whose job was lost. The job id is the event id, so queueing
 * twice is harmless, and a worker that was down when the event was written delivers it once it runs.
 */
export function startWebhookDelivery(
  context: WorkerContext,
  transport: QueueTransport,
  common: Omit<WorkerOptions, 'connection'>,
  options: WebhookDeliveryOptions = {},
): WebhookDelivery {
  const { db, queues, config, log } = context;
  const settings = config.webhooks;
  const client = createWebhookClient({
    allowedHosts: settings.allowedHosts,
    connectTimeoutMs: settings.connectTimeoutMs,
    totalTimeoutMs: settings.timeoutMs,
    resolve: createNameResolver({ servers: settings.dnsServers, timeoutMs: settings.dnsTimeoutMs }),
    // HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as for pushes; the address rules still hold (docs/security.md).
    proxy: config.outboundProxy,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });

  const fairness = createWebhookFairness({
    perAppConcurrency: settings.perAppConcurrency,
    breakerFailures: settings.breakerFailures,
    breakerPauseMs: settings.breakerPauseMs,
    attemptTimeoutMs: settings.timeoutMs,
    slots: appSlots(context, transport, settings.timeoutMs + SLOT_LEASE_MARGIN_MS),
    log,
  });

  const notice = createWebhookDisabledNotice(context);

  const worker = newWorker<WebhookJob>(
    queues.webhooks.name,
    async (job: Job<WebhookJob>, token?: string): Promise<unknown> => {
      const attempts = job.opts.attempts ?? settings.maxAttempts;
      const number = (job.data.attemptsBefore ?? 0) + job.attemptsMade + 1;
      try {
        return await deliverWebhook(context, client, fairness, notice, job.data, {
          number,
          last: job.attemptsMade + 1 >= attempts,
        });
      } catch (error) {
        if (!(error instanceof WebhookDeferred)) throw error;
        // BullMQ's PostgreSQL backend may finish a job as completed instead of delayed when two
        // worker processes share the queue and it is moved with moveToDelayed + DelayedError
        // (https://github.com/taskforcesh/bullmq/issues/4814): there the job ends, and a new one
        // with its attempts carried over is queued once it is gone (`completed` below).
        if (transport.backend === 'postgres') return { deferredUntil: error.retryAt, attemptsMade: job.attemptsMade };
        // Back on the queue behind other apps' events; BullMQ counts no attempt for it.
        await job.moveToDelayed(error.retryAt, token);
        throw new DelayedError();
      }
    },
    transport,
    { ...common, concurrency: settings.concurrency },
  );
  worker.on('completed', (job: Job<WebhookJob>, result: unknown) => {
    if (!isDeferral(result)) return;
    const attemptsBefore = (job.data.attemptsBefore ?? 0) + result.attemptsMade;
    queueWebhookMessage(queues.webhooks, job.data.messageId, settings, {
      attemptsBefore,
      delayMs: Math.max(0, result.deferredUntil - Date.now()),
    }).catch((error: unknown) =>
      // The relay queues it again once WEBHOOK_RELAY_STALE_MS has passed without an attempt.
      log.warn({ err: error, messageId: job.data.messageId }, 'a deferred webhook delivery could not be queued again'),
    );
  });
  worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'worker error'));

  async function relayOnce(): Promise<number> {
    let queued = 0;
    for (const { id } of await claimWebhookMessagesToQueue(
      db,
      settings.relayStaleMs / 1000,
      RELAY_BATCH,
      RELAY_PER_APP,
    )) {
      if (await queueWebhookMessage(queues.webhooks, id, settings)) queued++;
    }
    if (queued > 0) log.debug({ events: queued }, 'webhook relay queued events');
    return queued;
  }

  const relay = startPeriodicTask('webhook relay', settings.relayIntervalMs, relayOnce, log);
  return {
    relayOnce: () => relay.runOnce(),
    async close(force) {
      await relay.stop();
      await worker.close(force);
      await client.close();
      await notice.close();
    },
  };
}

/** Each app's slots are counted where the queues are, so every worker process counts them together. */
function appSlots(context: WorkerContext, transport: QueueTransport, leaseMs: number): AppSlots {
  if (transport.backend === 'redis') return redisAppSlots(transport.connection, context.config.redisKeyPrefix, leaseMs);
  return postgresAppSlots(context.db, leaseMs);
}

interface Deferral {
  deferredUntil: number;
  attemptsMade: number;
}

function isDeferral(result: unknown): result is Deferral {
  return typeof result === 'object' && result !== null && 'deferredUntil' in result;
}
