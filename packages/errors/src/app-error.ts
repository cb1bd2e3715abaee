import { type ErrorCode, type ErrorDetail, errorCatalogue, errorDetails } from './catalogue.js';

/** Options that change how one error is answered without changing its code. */
export interface AppErrorOptions {
  /** Overrides the catalogue status (e.g. 415 for INVALID_INPUT on a bad content type). */
  status?: number;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** Internal cause, logged but never shown to the client. */
  cause?: unknown;
  /**
   * Which rule of the code was broken, for a more precise message from `errorDetails` (which
   * password rule failed; why a limit could not be counted). The code stays what clients branch on.
   */
  detail?: ErrorDetail;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly upgradeUrl: boolean;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const definition = errorCatalogue[code];
    const detail = options.detail === undefined ? undefined : errorDetails[options.detail];
    if (detail && detail.code !== code) throw new Error(`error detail ${options.detail} belongs to ${detail.code}`);
    super(detail?.message ?? definition.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.statusCode = options.status ?? definition.status;
    this.upgradeUrl = definition.upgradeUrl;
    this.headers = options.headers ?? {};
  }
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  upgrade_url?: string;
}

/** The API's error body: exactly `error` and `code`, plus `upgrade_url` on the plan-limit codes. */
export function errorBody(code: ErrorCode, publicUrl: string, message?: string): ErrorBody {
  const definition = errorCatalogue[code];
  const body: ErrorBody = { error: message ?? definition.message, code };
  if (definition.upgradeUrl) body.upgrade_url = `${publicUrl.replace(/\/+$/, '')}/pricing`;
  return body;
}

export const isAppError = (value: unknown): value is AppError => value instanceof AppError;
