import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). 0 turns retrying off. */
  maxRetries?: number;
  /** First backoff when the service gives no `Retry-After`; doubles each retry, with jitter (default 500 ms). */
  baseDelayMs?: number;
  /** Longest wait between two attempts; a `Retry-After` beyond it is not waited for (default 30 s). */
  maxDelayMs?: number;
  /** How a wait between attempts is made (default: a timer); tests pass one that records the delays. */
  wait?: (ms: number) => Promise<void>;
}

/**
 * 429 codes that end when the month or the plan changes, not in seconds: retrying cannot help.
 * Any other 429 (`RATE_LIMITED`) and every 5xx is worth another attempt.
 */
const PERMANENT_429_CODES = new Set(['MONTHLY_LIMIT_EXCEEDED', 'SUBSCRIBER_LIMIT_EXCEEDED']);

async function isRetryable(response: Response): Promise<boolean> {
  if (response.status >= 500) return true;
  if (response.status !== 429) return false;
  try {
    const body = (await response.clone().json()) as { code?: unknown };
    return !PERMANENT_429_CODES.has(String(body.code));
  } catch {
    return true;
  }
}

/**
 * A request that changes nothing twice when sent twice: reads, `PATCH`/`DELETE`/`PUT`, and a `POST`
 * carrying an `Idempotency-Key`. Only those are sent again after a network error, since the first
 * attempt may have reached the service.
 */
const isRepeatable = (request: Request) => request.method !== 'POST' || request.headers.has('idempotency-key');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A `fetch` that sends a request again on 429 (other than plan limits), 5xx and network errors
 * (repeatable requests only), waiting `Retry-After` when the service gives one, else an
 * exponential backoff with full jitter. The last answer is returned as it came.
 */
export function fetchWithRetries(
  fetchImpl: (request: Request) => Promise<Response>,
  { maxRetries = 3, baseDelayMs = 500, maxDelayMs = 30_000, wait = sleep }: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const backoff = (retry: number) => Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** retry);
  return async (request) => {
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await fetchImpl(request.clone());
      } catch (error) {
        if (retry >= maxRetries || !isRepeatable(request) || request.signal.aborted) throw error;
        await wait(backoff(retry));
        continue;
      }
      if (retry >= maxRetries || !(await isRetryable(response))) return response;
      const askedSeconds = retryAfterSeconds(response.headers.get('retry-after'));
      const delayMs = askedSeconds === null ? backoff(retry) : askedSeconds * 1000;
      if (delayMs > maxDelayMs) return response;
      await response.body?.cancel();
      await wait(delayMs);
    }
  };
}
