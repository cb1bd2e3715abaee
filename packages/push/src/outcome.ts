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

export const isWnsOrigin = (origin: string | undefined): boolean =>
  origin !== undefined && /^https:\/\/[^/]+\.notify\.windows\.com(:\d+)?$/i.test(origin);

/**
 * WNS answers 406 Not Acceptable when the sending service exceeded its throttle limit: a reason to
 * send again later, not a refusal of the message ("WNS HTTP response codes",
 * https://learn.microsoft.com/windows/apps/windows-app-sdk/notifications/push-notifications/troubleshooting).
 */
const isThrottledByWns = (status: number, origin: string | undefined) => status === 406 && isWnsOrigin(origin);

export interface AnswerHeaders {
  retryAfter?: string | undefined;
  /** WNS: `received`, `dropped` or `channelthrottled`. */
  wnsStatus?: string | undefined;
  wnsContinueAfter?: string | undefined;
  /** WNS: why, in words (WNS puts its reasons in headers, its error bodies are empty). */
  wnsErrorDescription?: string | undefined;
}

/**
 * `outcomeForStatus` with the answer's headers: on WNS, `X-WNS-CONTINUE-AFTER` ("the number of seconds
 * to wait until sending another notification without being throttled") stands in for a missing
 * Retry-After, and `X-WNS-Status` / `X-WNS-Error-Description` for the empty body ("Push notification
 * service request and response headers",
 * https://learn.microsoft.com/windows/apps/design/shell/tiles-and-notifications/push-request-response-headers).
 */
export function outcomeForAnswer(status: number, headers: AnswerHeaders, body: string, origin?: string): PushOutcome {
  if (!isWnsOrigin(origin)) return outcomeForStatus(status, headers.retryAfter, body, origin);
  const retryAfter = headers.retryAfter ?? headers.wnsContinueAfter;
  let detail = body;
  if (detail === '' && headers.wnsStatus !== undefined) {
    detail = `X-WNS-Status: ${headers.wnsStatus}`;
    if (headers.wnsErrorDescription) detail += `; X-WNS-Error-Description: ${headers.wnsErrorDescription}`;
  }
  return outcomeForStatus(status, retryAfter, detail.slice(0, 200), origin);
}

/** What a push service's answer means for the message (docs/sending.md, "Why pushes failed"). */
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
  // WNS: `X-WNS-Status: dropped; …` (outcomeForAnswer); FCM: an HTML page titled with the reason
  // (`<title>UnauthorizedRegistration</title>`, web.dev "Common Issues and Reporting Bugs").
  const wns = /^X-WNS-Status: ([a-z]{1,32})\b/.exec(detail);
  if (wns) return wns[1];
  const titled = /<title>\s*([A-Z][A-Za-z]{0,63})\s*<\/title>/.exec(detail);
  if (titled) return titled[1];
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
 * What a failed push is counted under on its notification (`403 BadJwtToken`, `413`,
 * `network error: ECONNREFUSED`): a small set of keys, not the answers' free text.
 */
export function failureKey(outcome: PushOutcome): string {
  if (outcome.kind === 'sent' || outcome.kind === 'expired') return String(outcome.status);
  if (outcome.status === undefined) return outcome.reason.slice(0, 100);
  const prefix = `push service answered ${outcome.status}: `;
  const reason = outcome.reason.startsWith(prefix) ? serviceReason(outcome.reason.slice(prefix.length)) : undefined;
  return reason === undefined ? String(outcome.status) : `${outcome.status} ${reason}`;
}

const SENDER_STATUSES = new Set([401, 403, 405, 406, 408, 411, 413, 414, 415, 429, 431]);
/**
 * Reasons that name the sender's VAPID key or JWT, the payload's size or the sending rate: Apple's
 * (BadJwtToken, VapidPkHashMismatch, …), FCM's UnauthorizedRegistration (any VAPID problem), WNS's
 * channelthrottled, and autopush's errno for missing or bad crypto headers (101, 110, 111), size
 * (104), authorization (109), TTL (112), Topic (113) and back-off (201, 202).
 */
const SENDER_REASONS =
  /^(BadJwtToken|VapidPkHashMismatch|UnauthorizedRegistration|ExpiredProviderToken|InvalidProviderToken|MissingProviderToken|BadExpirationDate|PayloadTooLarge|PayloadEmpty|TooManyRequests|TooManyProviderTokenUpdates|channelthrottled|errno (101|104|109|110|111|112|113|201|202))$/;

/**
 * Whether a push was refused for a reason the subscription itself causes, so that refusals in a row
 * retire it (`RETIRE_AFTER_REFUSALS`): a permanent 4xx answer (404 and 410 already expire it) that
 * is not about the sender's own VAPID key or JWT, the payload's size or the sending rate. On WNS a
 * 400 is always about the request's headers ("One or more headers were specified incorrectly").
 * Nothing that happened before an answer counts.
 */
export function refusedBySubscription(outcome: PushOutcome, origin?: string): boolean {
  if (outcome.kind !== 'failed' || outcome.status === undefined) return false;
  const { status } = outcome;
  if (status < 400 || status > 499 || status === 404 || status === 410 || SENDER_STATUSES.has(status)) return false;
  if (status === 400 && isWnsOrigin(origin)) return false;
  const key = failureKey(outcome);
  return !SENDER_REASONS.test(key.slice(String(status).length + 1));
}
