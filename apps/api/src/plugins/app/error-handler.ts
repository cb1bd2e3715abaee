import { isUtf8 } from 'node:buffer';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode, errorBody } from '@webpush/errors';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { codeForValidation } from './validation.js';

/** Answers an unknown path with a page, or returns null to leave it to the JSON 404. */
export type PageFallback = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | null;

declare module 'fastify' {
  interface FastifyInstance {
    setPageFallback(fallback: PageFallback): void;
  }
}

/** Fastify's own client errors, by code, mapped onto the catalogue's codes. */
const frameworkErrors: Record<string, { code: ErrorCode; status?: number }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'INVALID_INPUT', status: 415 },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'INVALID_INPUT' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'MISSING_FIELDS' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_INPUT' },
  FST_ERR_BAD_URL: { code: 'INVALID_INPUT' },
};

/**
 * PostgreSQL error classes (SQLSTATE) that mean "the client's value cannot be stored or compared":
 * the safety net behind the storable-input hook, for what it cannot know in advance.
 */
const storageRefusals: Record<string, string> = {
  '22001': 'string_data_right_truncation',
  '22003': 'numeric_value_out_of_range',
  '22007': 'invalid_datetime_format',
  '22008': 'datetime_field_overflow',
  '22021': 'character_not_in_repertoire',
  '22P02': 'invalid_text_representation',
  '22P05': 'untranslatable_character',
  '54000': 'program_limit_exceeded', // e.g. a value too long for a btree index entry
};

/** The SQLSTATE class name when `error` (or its cause: drizzle wraps the driver's error) is a storage refusal. */
export function storageRefusal(error: unknown): string | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && current.name === 'PostgresError') return storageRefusals[code] ?? null;
    current = current.cause;
  }
  return null;
}

export function toAppError(error: FastifyError, request: FastifyRequest): AppError | null {
  if (error instanceof AppError) return error;
  if (storageRefusal(error)) return new AppError('INVALID_INPUT', { cause: error });
  if (error.validation) {
    const bodyPresent = error.validationContext !== 'body' || request.body !== undefined;
    return new AppError(codeForValidation(error.validation, bodyPresent), { cause: error });
  }
  const known = error.code ? frameworkErrors[error.code] : undefined;
  if (known) return new AppError(known.code, { status: known.status, cause: error });
  // JSON.parse failures and any other framework 4xx: the client sent something we cannot read.
  if (
    error instanceof SyntaxError ||
    (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
  ) {
    return new AppError('INVALID_INPUT', { cause: error });
  }
  return null;
}

export function sendError(reply: FastifyReply, error: AppError, publicUrl: string): FastifyReply {
  // A plain serializer, not the route's response schema: an error body must never fail to serialize
  // because a route's documentation did not list a code (the fuzz found that as a 500).
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .serializer((body: unknown) => JSON.stringify(body))
    .send(errorBody(error.code, publicUrl, error.message));
}

/**
 * Fastify's `frameworkErrors` option: errors raised before a route is found (a path that does not
 * percent-decode) would otherwise get Fastify's default body.
 */
export function frameworkErrorHandler(publicUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void sendError(reply, toAppError(error, request) ?? new AppError('INTERNAL_ERROR'), publicUrl);
  };
}

/**
 * Fastify's `clientErrorHandler` option: a request Node's HTTP parser refuses (malformed, headers too
 * large, timed out) is answered on the raw socket, in the contract's body instead of Fastify's.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = JSON.stringify(errorBody('INVALID_INPUT', ''));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * One place turns every failure into the contract's body: catalogue errors as thrown, framework
 * errors mapped, anything else a logged 500 INTERNAL_ERROR that shows nothing of its cause.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { publicUrl } = app.config;

    // Bodies are JSON only: without this, Fastify's built-in text/plain parser would let a
    // `text/plain` body through to validation (400) instead of the contract's 415.
    app.removeContentTypeParser('text/plain');

    // An empty body sent as `application/json` is no body, not a parse error: a route without a body
    // (logout, the DELETEs) answers as usual, one that needs a body answers MISSING_FIELDS.
    // Invalid UTF-8 is refused here: decoded as a string it would silently become U+FFFD.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      const bytes = body as Buffer;
      if (bytes.length === 0) return done(null, undefined);
      if (!isUtf8(bytes)) return done(new AppError('INVALID_INPUT'), undefined);
      return parseJson(request, bytes.toString('utf8'), done);
    });

    app.setErrorHandler((error: FastifyError, request, reply) => {
      const appError = toAppError(error, request);
      const refused = storageRefusal(error);
      if (refused) {
        // The input boundary (storable-input) should have caught this: say so loudly enough to fix it there.
        request.log.warn(
          { err: error, sqlState: refused },
          'PostgreSQL refused a client value: answered INVALID_INPUT',
        );
      }
      if (appError) {
        if (appError.statusCode >= 500) request.log.error({ err: error }, `answered ${appError.code}`);
        return sendError(reply, appError, publicUrl);
      }
      request.log.error({ err: error, reqId: request.id }, 'unhandled error');
      return sendError(reply, new AppError('INTERNAL_ERROR'), publicUrl);
    });

    // The dashboard answers browser navigations to its client routes (see routes/dashboard); every
    // other unknown path keeps the contract's JSON 404.
    let pageFallback: PageFallback | null = null;
    app.decorate('setPageFallback', (fallback: PageFallback) => {
      pageFallback = fallback;
    });
    app.setNotFoundHandler(
      (request, reply) => pageFallback?.(request, reply) ?? sendError(reply, new AppError('NOT_FOUND'), publicUrl),
    );
  },
  { name: 'error-handler', dependencies: ['config'] },
);
