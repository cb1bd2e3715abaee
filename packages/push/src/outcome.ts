import type { PushOutcome } from './types.js';

/**
 * `Retry-After` (RFC 9110 §10.2.3) in milliseconds from `now`: delay-seconds or an HTTP date.
 * Undefined when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form names its month; V8's Date.parse would otherwise read '-5' as a year.
  const date = /[A-Za-z]{3}/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** CONTRACT "Delivery": what a push service's answer means for the message. */
export function outcomeForStatus(status: number, retryAfter: string | undefined, detail: string): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent', status };
  if (status === 404 || status === 410) return { kind: 'expired', status };
  const reason = detail === '' ? `push service answered ${status}` : `push service answered ${status}: ${detail}`;
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return retryAfterMs === undefined
      ? { kind: 'retry', status, reason }
      : { kind: 'retry', status, retryAfterMs, reason };
  }
  return { kind: 'failed', status, reason };
}
