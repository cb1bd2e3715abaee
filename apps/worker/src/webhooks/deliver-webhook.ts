import {
  dropWebhookMessage,
  findWebhookNotification,
  fixWebhookBody,
  loadWebhookDelivery,
  publicNotification,
  recordWebhookAttempt,
  recordWebhookFailure,
  recordWebhookRecovery,
  type WebhookMessage,
} from '@webpush/db';
import type { WebhookJob } from '@webpush/queue';
import { openSecret, webhookSecretContext } from '@webpush/secrets';
import type { WebhookAttemptResult, WebhookClient } from '@webpush/webhooks';
import { UnrecoverableError } from 'bullmq';
import type { WorkerContext } from '../context.js';
import type { WebhookDisabledNotice } from './disabled-notice.js';
import type { WebhookFairness } from './fairness.js';

/** `held`: the webhook is disabled; the event stays pending until its owner resumes it. */
export type WebhookResult = 'delivered' | 'skipped' | 'dropped' | 'held';

/**
 * What the owner sees as the last error: the status or the kind of failure, never the receiver's
 * answer, nor the details of our network (addresses, proxies).
 */
export function shortWebhookError(result: Pick<WebhookAttemptResult, 'status' | 'error'>): string {
  if (result.status !== null) return `HTTP ${result.status}`;
  const error = result.error ?? '';
  if (/timed out|timeout|UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT/i.test(error)) return 'timeout';
  if (/ECONNREFUSED/.test(error)) return 'connection refused';
  if (/ECONNRESET|UND_ERR_SOCKET|other side closed/i.test(error)) return 'connection reset';
  if (/refused URL|EREFUSEDADDRESS|no public address/.test(error)) return 'address not allowed';
  if (/ENOTFOUND|EAI_AGAIN|ENODATA|ESERVFAIL|resolve/i.test(error)) return 'DNS lookup failed';
  if (/CERT|TLS|SSL|self[- ]signed|UNABLE_TO_VERIFY/i.test(error)) return 'TLS error';
  if (/signing secret/.test(error)) return 'signing secret unavailable';
  return 'connection error';
}

/** A non-2xx answer or no answer: BullMQ retries the job after the webhook backoff. */
export class WebhookAttemptFailed extends Error {
  override readonly name = 'WebhookAttemptFailed';
}

/**
 * The app already has its share of deliveries in flight, or its endpoint is paused by the circuit
 * breaker: the job goes back on the queue until `retryAt`, without spending an attempt.
 */
export class WebhookDeferred extends Error {
  override readonly name = 'WebhookDeferred';
  constructor(
    readonly retryAt: number,
    readonly reason: string,
  ) {
    super(`webhook delivery deferred: ${reason}`);
  }
}

/** What `subscription.expired` reports, in the contract's field order (jsonb keeps none). */
function subscriberData(data: Record<string, unknown> | null) {
  const subscriber = (data?.subscriber ?? {}) as { id?: unknown; endpoint?: unknown; uid?: unknown };
  return { subscriber: { id: subscriber.id, endpoint: subscriber.endpoint, uid: subscriber.uid ?? null } };
}

/**
 * `{type, timestamp, data}`, built once, at the first attempt, and kept: every retry and every
 * "send again" sends the same bytes. Null when the notification it reports is gone.
 */
async function messageBody(context: WorkerContext, message: WebhookMessage): Promise<string | null> {
  if (message.body !== null) return message.body;
  let data: unknown;
  if (message.type === 'subscription.expired') {
    data = subscriberData(message.data);
  } else {
    const notification = await findWebhookNotification(context.db, message);
    if (!notification) return null;
    data = publicNotification(notification);
  }
  const body = JSON.stringify({ type: message.type, timestamp: message.createdAt.toISOString(), data });
  return fixWebhookBody(context.db, message.id, body);
}

async function drop(context: WorkerContext, message: WebhookMessage): Promise<WebhookResult> {
  await dropWebhookMessage(context.db, message.id);
  context.log.info(
    { messageId: message.id, appId: message.appId },
    'webhook event dropped: no webhook or subject any more, or the account is suspended',
  );
  return 'dropped';
}

/**
 * Sends one outbox event and records the attempt. Throws on a failed attempt so BullMQ retries it
 * (with the same `webhook-id`, the event's id); the last attempt marks the event `failed`.
 */
export async function deliverWebhook(
  context: WorkerContext,
  client: WebhookClient,
  fairness: WebhookFairness,
  notice: WebhookDisabledNotice,
  job: WebhookJob,
  attempt: { number: number; last: boolean },
): Promise<WebhookResult> {
  const { db, config, log } = context;
  const delivery = await loadWebhookDelivery(db, job.messageId);
  if (!delivery) return 'skipped';
  const { message, webhook } = delivery;
  if (message.status !== 'pending') return 'skipped';
  // A suspended account's events are dropped, not held: lifting the suspension sends none of them.
  if (!webhook || delivery.ownerSuspended) return drop(context, message);
  // The relay queues it again when the owner resumes the webhook.
  if (webhook.disabledAt !== null) return 'held';
  fairness.adopt(message.appId, webhook.url, {
    failures: webhook.failuresInARow,
    pausedUntil: webhook.pausedUntil?.getTime() ?? null,
  });
  // The slot first: a deferred delivery costs this one look-up, not the body's too.
  const slot = await fairness.acquire(message.appId, webhook.url);
  if (!slot.ok) throw new WebhookDeferred(slot.retryAt, slot.reason);
  let result: WebhookAttemptResult;
  try {
    const body = await messageBody(context, message);
    if (body === null) {
      slot.release();
      return drop(context, message);
    }
    if (!config.encryptionKey) {
      result = { ok: false, status: null, durationMs: 0, response: null, error: 'signing secret unavailable' };
    } else {
      const secret = openSecret(config.encryptionKey, webhook.secretSealed, webhookSecretContext(message.appId));
      result = await client.send({ url: webhook.url, secret, id: message.id, body });
    }
  } catch (error) {
    slot.release();
    throw error;
  }
  slot.release(result);
  const outcome = result.ok ? 'delivered' : attempt.last ? 'failed' : 'pending';
  const { status, durationMs, response, error } = result;
  // The owner reads attempts (GET …/webhook/deliveries): they get the kind of failure; the details
  // (addresses, certificate names, what the proxy said) go to the log below.
  const shown = error === null ? null : shortWebhookError({ status: null, error });
  await recordWebhookAttempt(db, message, { url: webhook.url, status, durationMs, response, error: shown }, outcome);
  if (result.ok) {
    // Only a recovery writes: a healthy webhook's deliveries cost no extra statement.
    if (webhook.failuresInARow > 0) await recordWebhookRecovery(db, message.appId, webhook.url);
    return 'delivered';
  }
  const reason = error ?? `answered ${status}`;
  log.info({ messageId: message.id, attempt: attempt.number, reason }, 'webhook attempt failed');
  const pausedUntil = fairness.endpoint(message.appId, webhook.url)?.pausedUntil ?? null;
  const lastError = shortWebhookError(result);
  const breaker = await recordWebhookFailure(db, message.appId, webhook.url, {
    reason: lastError,
    status,
    pausedUntil: pausedUntil === null ? null : new Date(pausedUntil),
    disableAfterMs: config.webhooks.disableAfterMs,
  });
  if (breaker?.justDisabled) {
    log.warn({ appId: message.appId, lastError }, 'webhook disabled: it has failed for WEBHOOK_DISABLE_AFTER_MS');
    notice.send(message.appId, lastError);
  }
  if (breaker?.disabledAt && !attempt.last) return 'held';
  if (attempt.last) throw new UnrecoverableError(reason);
  throw new WebhookAttemptFailed(reason);
}
