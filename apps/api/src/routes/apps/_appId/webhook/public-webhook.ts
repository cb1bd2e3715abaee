import type { Webhook } from '@webpush/db';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** Where deliveries stand: disabled until resumed, paused until `pausedUntil`, or active. */
export function webhookStatus(webhook: Webhook, now = Date.now()): 'active' | 'paused' | 'disabled' {
  if (webhook.disabledAt !== null) return 'disabled';
  if (webhook.pausedUntil !== null && webhook.pausedUntil.getTime() > now) return 'paused';
  return 'active';
}

/** A webhook as the API shows it (never its signing secret), with its circuit breaker's state. */
export const publicWebhook = (webhook: Webhook) => {
  const status = webhookStatus(webhook);
  return {
    url: webhook.url,
    events: webhook.events,
    status,
    failuresInARow: webhook.failuresInARow,
    pausedUntil: status === 'paused' ? iso(webhook.pausedUntil) : null,
    failingSince: iso(webhook.failingSince),
    lastError:
      webhook.lastErrorReason === null || webhook.lastErrorAt === null
        ? null
        : { reason: webhook.lastErrorReason, status: webhook.lastErrorStatus, at: webhook.lastErrorAt.toISOString() },
    disabledAt: iso(webhook.disabledAt),
  };
};
