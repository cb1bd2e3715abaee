import { type ErrorCode, errorCatalogue } from '@webpush/errors';
import { type TSchema, Type } from 'typebox';

/** The marker keyword checked by the push-endpoint AJV keyword (see plugins/app/validation.ts). */
export const PUSH_ENDPOINT_KEYWORD = 'x-push-endpoint';

/** A URL field of the contract: only `https://` (anything else is INVALID_URL). */
export const HttpsUrl = (description: string) =>
  Type.String({ pattern: '^https://', maxLength: 2048, description, examples: ['https://example.com/'] });

/** A browser push endpoint: https, well formed, on the push-service allowlist (INVALID_ENDPOINT). */
export const PushEndpoint = (
  description = 'Push endpoint, exactly as the browser gave it',
  extra: Record<string, unknown> = {},
) =>
  Type.String({
    pattern: '^https://',
    [PUSH_ENDPOINT_KEYWORD]: true,
    description,
    examples: ['https://fcm.googleapis.com/fcm/send/dGVzdA:APA91b'],
    ...extra,
  });

/** A required string: an empty one counts as missing (MISSING_FIELDS). */
export const RequiredString = (description: string, extra: Record<string, unknown> = {}) =>
  Type.String({ minLength: 1, description, ...extra });

export const ErrorBodySchema = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message (Japanese)' }),
    code: Type.String({ description: 'Machine-readable error code' }),
    upgrade_url: Type.Optional(Type.String({ description: 'Only on the plan-limit codes' })),
  },
  { $id: 'ErrorBody', description: 'Every error has this body' },
);

/**
 * The reference's example of an error answer: the body this code really has (the catalogue's
 * Japanese message; `upgrade_url` only on the plan-limit codes), not one made up from the schema.
 */
function errorExample(code: ErrorCode): Record<string, string> {
  const { message, upgradeUrl } = errorCatalogue[code];
  return upgradeUrl
    ? { error: message, code, upgrade_url: 'https://push.example.com/pricing' }
    : { error: message, code };
}

/**
 * Response schemas for a route's documented errors, grouped by status, so the OpenAPI document
 * lists the codes each route can answer with.
 */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = errorCatalogue[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, TSchema> = {};
  for (const [status, list] of byStatus) {
    responses[status] = Type.Object(
      {
        error: Type.String(),
        code: Type.Union(list.map((code) => Type.Literal(code))),
        upgrade_url: Type.Optional(Type.String()),
      },
      { description: list.join(', '), examples: [errorExample(list[0] as ErrorCode)] },
    );
  }
  return responses;
}

/** OpenAPI security of the routes a dashboard session (header or cookie) may call. */
export const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
/** What a session-only route may answer before its handler runs. */
export const sessionAuthErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

export const AppIdParams = Type.Object({ appId: Type.String({ description: 'App id (uuid)' }) });

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/**
 * `limit` and `cursor` of a keyset-paginated list. Query values arrive as strings: the route's
 * `integerQuery` hook turns digit strings into numbers before validation, so `limit=abc`, `limit=0`
 * and `limit=101` are all INVALID_INPUT.
 */
export const PageQueryFields = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Page size, 1 to ${MAX_PAGE_SIZE}`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 128,
      description: 'The `nextCursor` of the previous page (opaque); absent for the first page',
    }),
  ),
};

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as `cursor` for the next page; null on the last page',
});
