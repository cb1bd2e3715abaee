import { isAllowedPushHost, type PushHostRule } from '@webpush/config';
import { decodeCursor, type KeysetPosition } from '@webpush/db';
import { AppError, type ErrorCode } from '@webpush/errors';
import type { Ajv } from 'ajv';
import type { preValidationAsyncHookHandler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { PUSH_ENDPOINT_KEYWORD } from '../../schemas/common.js';

const MAX_ENDPOINT_LENGTH = 2048;

/** docs/security.md, "No SSRF through push endpoints": absolute https URL with host and path, no credentials or fragment, allowlisted host. */
export function isWellFormedPushEndpoint(value: string, allowlist: readonly PushHostRule[]): boolean {
  if (value.length > MAX_ENDPOINT_LENGTH || !value.startsWith('https://')) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return false;
  if (value.includes('#') || url.pathname === '/' || url.pathname === '') return false;
  const port = url.port === '' ? 443 : Number(url.port);
  return isAllowedPushHost(allowlist, url.hostname.replace(/^\[|\]$/g, ''), port);
}

/** AJV plugin: the `x-push-endpoint` keyword, bound to this process's allowlist. */
export function pushEndpointKeyword(allowlist: readonly PushHostRule[]) {
  return (ajv: Ajv) => {
    ajv.addKeyword({
      keyword: PUSH_ENDPOINT_KEYWORD,
      type: 'string',
      schemaType: 'boolean',
      errors: false,
      validate: (enabled: boolean, data: string) => !enabled || isWellFormedPushEndpoint(data, allowlist),
    });
    return ajv;
  };
}

/**
 * Optional fields whose inner parts can be "missing" (a button without a title, a segment node that
 * matches none of its shapes, a translation without a title): a bad shape, not a missing field.
 */
const RICH_FIELD = /^\/(actions|tag|data|segment|translations)(\/|$)/;

/**
 * Maps schema failures to the contract's codes, in its order: missing field → MISSING_FIELDS,
 * non-https URL → INVALID_URL, bad push endpoint → INVALID_ENDPOINT, anything else → INVALID_INPUT.
 */
export function codeForValidation(errors: readonly FastifySchemaValidationError[], bodyPresent: boolean): ErrorCode {
  const has = (predicate: (error: FastifySchemaValidationError) => boolean) => errors.some(predicate);
  if (!bodyPresent) return 'MISSING_FIELDS';
  const missing = (e: FastifySchemaValidationError) =>
    e.keyword === 'required' || (e.keyword === 'minLength' && e.params.limit === 1);
  // A button without a title, an empty tag or a segment of no known shape is a bad shape
  // (INVALID_INPUT), not a missing field of the request.
  if (has((e) => missing(e) && !RICH_FIELD.test(e.instancePath))) {
    return 'MISSING_FIELDS';
  }
  if (has((e) => e.keyword === 'pattern' && e.params.pattern === '^https://')) return 'INVALID_URL';
  if (has((e) => e.keyword === PUSH_ENDPOINT_KEYWORD)) return 'INVALID_ENDPOINT';
  return 'INVALID_INPUT';
}

const DIGITS = /^\d{1,15}$/;

/**
 * A preValidation hook for integer query parameters: query values are strings and AJV does not
 * coerce (see app.ts), so a digit string becomes a number here and the schema's integer bounds
 * apply; anything else (`abc`, `1.5`, `-1`, a repeated parameter) stays as sent and fails as
 * INVALID_INPUT.
 */
export function integerQuery(...names: string[]): preValidationAsyncHookHandler {
  return async (request) => {
    const query = request.query as Record<string, unknown>;
    for (const name of names) {
      const value = query[name];
      if (typeof value === 'string' && DIGITS.test(value)) query[name] = Number(value);
    }
  };
}

/** The position a list's `cursor` query parameter stands for; a malformed cursor is INVALID_INPUT. */
export function cursorPosition(cursor: string | undefined): KeysetPosition | null {
  if (cursor === undefined) return null;
  const position = decodeCursor(cursor);
  if (!position) throw new AppError('INVALID_INPUT');
  return position;
}
