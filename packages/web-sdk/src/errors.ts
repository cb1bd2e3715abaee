/** Why a call failed; the one value a site's code branches on. */
export type WebPushErrorReason =
  | 'unsupported'
  /** iOS / iPadOS Safari in a tab: push works only in a web app added to the Home Screen. */
  | 'home-screen-required'
  | 'permission-denied'
  | 'network'
  | 'api'
  | 'service-worker';

export interface WebPushErrorDetails {
  /** The API's machine-readable `code` (e.g. `INVALID_API_KEY`), on `reason: 'api'` only. */
  code?: string;
  /** The API's HTTP status, on `reason: 'api'` only. */
  status?: number;
  cause?: unknown;
}

/** Every failure of the SDK, typed: `reason` says what went wrong, `code`/`status` carry the API's answer. */
export class WebPushError extends Error {
  override readonly name = 'WebPushError';
  readonly reason: WebPushErrorReason;
  readonly code: string | undefined;
  readonly status: number | undefined;

  constructor(reason: WebPushErrorReason, message: string, details: WebPushErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = reason;
    this.code = details.code;
    this.status = details.status;
  }
}
