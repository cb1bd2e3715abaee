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

/**
 * WNS answers 406 Not Acceptable when the sending service exceeded its throttle limit: a reason to
 * send again later, not a refusal of the message ("WNS HTTP response codes",
 * https://learn.microsoft.com/windows/apps/windows-app-sdk/notifications/push-notifications/troubleshooting).
 */
const isThrottledByWns = (status: number, origin: string | undefined) =>
  status === 406 && origin !== undefined && /\.notify\.windows\.com(:\d+)?$/.test(origin);

/**
 * CONTRACT "Delivery": what a push service's answer means for the message. `origin` (the endpoint's)
 * lets a push service's own meaning of a status count (WNS's 406).
 */
export function outcomeForStatus(
  status: number,
  retryAfter: string | undefined,
  detail: string,
  origin?: string,
): PushOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent', status };
  if (status === 404 || status === 410) return { kind: 'expired', status };
  const reason = detail === '' ? `push service answered ${status}` : `push service answered ${status}: ${detail}`;
  if (status === 429 || status >= 500 || isThrottledByWns(status, origin)) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return retryAfterMs === undefined
      ? { kind: 'retry', status, reason }
      : { kind: 'retry', status, retryAfterMs, reason };
  }
  return { kind: 'failed', status, reason };
}

/**
 * The reason a push service gave in a JSON answer: Apple's `{"reason": "BadJwtToken"}`
 * (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers),
 * Mozilla autopush's `{"errno": 102, "error": "Not Found", …}` gives `errno 102`. Undefined for anything else.
 */
function serviceReason(detail: string): string | undefined {
  if (!detail.startsWith('{')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(detail);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { reason, errno } = parsed as { reason?: unknown; errno?: unknown };
  if (typeof reason === 'string' && /^[A-Za-z][\w.-]{0,63}$/.test(reason)) return reason;
  if (typeof errno === 'number' && Number.isInteger(errno)) return `errno ${errno}`;
  return undefined;
}

/**
 * What a failed push is counted under on its notification: the status and the push service's reason
 * (`403 BadJwtToken`), the status alone when it gave none (`413`), or what went wrong before any
 * answer (`network error: ECONNREFUSED`). A small set of keys, not the answers' free text.
 */
export function failureKey(outcome: PushOutcome): string {
  if (outcome.kind === 'sent' || outcome.kind === 'expired') return String(outcome.status);
  if (outcome.status === undefined) return outcome.reason.slice(0, 100);
  const prefix = `push service answered ${outcome.status}: `;
  const reason = outcome.reason.startsWith(prefix) ? serviceReason(outcome.reason.slice(prefix.length)) : undefined;
  return reason === undefined ? String(outcome.status) : `${outcome.status} ${reason}`;
}
