import { AppError } from '@webpush/errors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * PostgreSQL refuses NUL in `text` and `jsonb` (an error, so a 500), and a lone UTF-16 surrogate has
 * no UTF-8 encoding (postgres.js would silently store U+FFFD instead). Either is a string the client
 * cannot mean: refuse it at the door.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isStorableString(value: string): boolean {
  return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
}

/** Every string in a parsed JSON value (object keys included), without recursion: nesting can be deep. */
export function findUnstorableString(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (!isStorableString(value)) return true;
    } else if (Array.isArray(value)) {
      pending.push(...value);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (!isStorableString(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * The one input boundary for what PostgreSQL cannot store: a hook on every route that
 * answers 400 INVALID_INPUT when the parsed body, query string or path parameters hold NUL or a lone
 * surrogate. It runs as `preHandler`, after schema validation, so the contract's order of codes
 * (MISSING_FIELDS, INVALID_URL, …) holds first; invalid UTF-8 bytes never get this far (the JSON
 * parser refuses them). Headers need no check: Node's HTTP parser refuses NUL there, and bytes
 * above 0x7f decode as Latin-1, which is storable.
 *
 * What a hook cannot see in advance (a value too long for a btree index entry, a number out of a
 * column's range) is caught behind it, where PostgreSQL reports it: the error handler maps those
 * error classes to the same 400 (see `storageRefusal` in error-handler.ts).
 */
export default fp(
  async (app: FastifyInstance) => {
    app.addHook('preHandler', async (request: FastifyRequest) => {
      if (
        findUnstorableString(request.body) ||
        findUnstorableString(request.query) ||
        findUnstorableString(request.params)
      ) {
        throw new AppError('INVALID_INPUT');
      }
    });
  },
  { name: 'storable-input', dependencies: ['error-handler'] },
);
