import { claimUnqueuedWebhookMessages } from '@webpush/db';
import { jobNames, type WebhookJob, webhookJobOptions } from '@webpush/queue';
import { createWebhookClient, type WebhookClient } from '@webpush/webhooks';
import { type Job, Worker, type WorkerOptions } from 'bullmq';
import type { WorkerContext } from './context.js';
import { deliverWebhook } from './processors/deliver-webhook.js';

const SWEEP_BATCH = 500;
const IN_FLIGHT = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

export interface WebhookDelivery {
  /** One sweep now: queues outbox messages without a job; resolves to how many were queued. */
  sweepOnce(): Promise<number>;
  close(force: boolean): Promise<void>;
}

export interface WebhookDeliveryOptions {
  /** Extra trusted CA (tests' local HTTPS receiver). */
  ca?: string;
}

/**
 * Webhook delivery in the worker: a BullMQ worker on the `webhooks` queue, and the sweep, a timer
 * (like the reconciler, so it survives a loss of Redis data) that queues every pending outbox
 * message whose job does not exist: new messages (the outbox rows are written by the state change
 * itself, never queued by it) and messages whose job was lost. The job id is the message id, so
 * queueing twice is harmless.
 */
export function startWebhookDelivery(
  context: WorkerContext,
  common: WorkerOptions,
  options: WebhookDeliveryOptions = {},
): WebhookDelivery {
  const { db, queues, config, log } = context;
  const settings = config.webhooks;
  const client: WebhookClient = createWebhookClient({
    allowedHosts: settings.allowedHosts,
    connectTimeoutMs: settings.connectTimeoutMs,
    totalTimeoutMs: settings.timeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  });
  const jobOptions = webhookJobOptions(settings.maxAttempts, settings.backoffMs);

  const worker = new Worker<WebhookJob>(
    queues.webhooks.name,
    (job: Job<WebhookJob>) => {
      const attempts = job.opts.attempts ?? settings.maxAttempts;
      const number = job.attemptsMade + 1;
      return deliverWebhook(context, client, job.data, { number, last: number >= attempts });
    },
    { ...common, concurrency: settings.concurrency },
  );
  worker.on('error', (error) => log.error({ err: error, queue: worker.name }, 'worker error'));

  async function sweepOnce(): Promise<number> {
    let queued = 0;
    for (const { id, neverQueued } of await claimUnqueuedWebhookMessages(
      db,
      settings.sweepStaleMs / 1000,
      SWEEP_BATCH,
    )) {
      if (!neverQueued) {
        const state = await queues.webhooks.getJobState(id);
        if (IN_FLIGHT.has(state)) continue;
        // A finished job of a message made pending again ("send again") is replaced.
        if (state !== 'unknown') await (await queues.webhooks.getJob(id))?.remove();
      }
      await queues.webhooks.add(jobNames.deliverWebhook, { messageId: id }, { ...jobOptions, jobId: id });
      queued++;
    }
    return queued;
  }

  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      sweepOnce().catch((error: unknown) => log.error({ err: error }, 'webhook sweep failed; retrying next interval')),
    );
  }, settings.sweepIntervalMs);
  timer.unref();

  return {
    sweepOnce: () => {
      const pass = running.then(sweepOnce);
      running = pass.catch(() => undefined);
      return pass;
    },
    async close(force) {
      clearInterval(timer);
      await running;
      await worker.close(force);
      await client.close();
    },
  };
}
