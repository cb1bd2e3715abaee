import {
  dropWebhookMessage,
  fixWebhookBody,
  loadWebhookDelivery,
  publicNotification,
  recordWebhookAttempt,
  type WebhookMessage,
  webhookSubject,
} from '@webpush/db';
import type { WebhookJob } from '@webpush/queue';
import { openSecret } from '@webpush/secrets';
import type { WebhookClient } from '@webpush/webhooks';
import { UnrecoverableError } from 'bullmq';
import type { WorkerContext } from '../context.js';

export type WebhookResult = 'delivered' | 'skipped' | 'dropped';

/** A non-2xx answer or no answer: BullMQ retries the job with the webhook backoff. */
export class WebhookAttemptFailed extends Error {
  override readonly name = 'WebhookAttemptFailed';
}

/** `{type, timestamp, data}`: built once, at the first attempt, from the subject as it is then. */
async function messageBody(context: WorkerContext, message: WebhookMessage): Promise<string | null> {
  if (message.body !== null) return message.body;
  const subject = await webhookSubject(context.db, message);
  if (!subject) return null;
  const data =
    'notification' in subject
      ? publicNotification(subject.notification)
      : { subscriber: { id: subject.subscriber.id, endpoint: subject.subscriber.endpoint, uid: null } };
  const body = JSON.stringify({ type: message.type, timestamp: message.createdAt.toISOString(), data });
  return fixWebhookBody(context.db, message.id, body);
}

/**
 * Sends one outbox message and records the attempt. Throws on a failed attempt so BullMQ retries
 * it (the same `webhook-id`, the message id); the last attempt marks the message `failed`.
 */
export async function deliverWebhook(
  context: WorkerContext,
  client: WebhookClient,
  job: WebhookJob,
  attempt: { number: number; last: boolean },
): Promise<WebhookResult> {
  const { db, config, log } = context;
  const delivery = await loadWebhookDelivery(db, job.messageId);
  if (!delivery) return 'skipped';
  const { message, webhook } = delivery;
  if (message.status !== 'pending') return 'skipped';
  const body = webhook ? await messageBody(context, message) : null;
  if (!webhook || body === null || !config.encryptionKey) {
    await dropWebhookMessage(db, message.id);
    log.warn({ messageId: message.id, appId: message.appId }, 'webhook message dropped: no webhook, subject or key');
    return 'dropped';
  }
  const result = await client.send({
    url: webhook.url,
    secret: openSecret(config.encryptionKey, webhook.secretSealed),
    id: message.id,
    body,
  });
  const outcome = result.ok ? 'delivered' : attempt.last ? 'failed' : 'pending';
  await recordWebhookAttempt(
    db,
    message,
    {
      url: webhook.url,
      status: result.status,
      durationMs: result.durationMs,
      response: result.response,
      error: result.error,
    },
    outcome,
  );
  if (result.ok) return 'delivered';
  const reason = result.error ?? `answered ${result.status}`;
  log.info({ messageId: message.id, attempt: attempt.number, reason }, 'webhook attempt failed');
  if (attempt.last) throw new UnrecoverableError(reason);
  throw new WebhookAttemptFailed(reason);
}
