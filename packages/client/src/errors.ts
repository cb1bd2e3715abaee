/**
 * An error answer of the API: `code` is the stable machine-readable code (`RATE_LIMITED`,
 * `MONTHLY_LIMIT_EXCEEDED`, …), `error` the service's Japanese message, `status` the HTTP status.
 */
export class WebPushError extends Error {
  override readonly name = 'WebPushError';
  readonly status: number;
  readonly code: string;
  /** The Japanese message of the answer, as the service wrote it. */
  readonly error: string;
  /** The plan page, on the three plan-limit codes only. */
  readonly upgradeUrl: string | null;
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | null;

  constructor(init: {
    status: number;
    code: string;
    error: string;
    upgradeUrl?: string | null;
    retryAfterSeconds?: number | null;
  }) {
    super(`${init.code} (${init.status}): ${init.error}`);
    this.status = init.status;
    this.code = init.code;
    this.error = init.error;
    this.upgradeUrl = init.upgradeUrl ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
  }
}

/** The error body every route answers with: `{error, code}` (+ `upgrade_url` on plan limits). */
export function toWebPushError(response: Response, body: unknown): WebPushError {
  const parsed = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return new WebPushError({
    status: response.status,
    code: typeof parsed.code === 'string' ? parsed.code : `HTTP_${response.status}`,
    error: typeof parsed.error === 'string' ? parsed.error : response.statusText || `HTTP ${response.status}`,
    upgradeUrl: typeof parsed.upgrade_url === 'string' ? parsed.upgrade_url : null,
    retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')),
  });
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
