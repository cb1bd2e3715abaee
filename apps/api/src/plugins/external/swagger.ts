import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ErrorCode } from '@webpush/errors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { operations, tags } from '../../openapi/operations.js';
import { errorResponses } from '../../schemas/common.js';

const successDescriptions: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: queued for delivery',
  '204': 'No content',
  '302': 'Redirect',
};

type RouteSchema = Record<string, unknown> & { body?: unknown; response?: Record<string, Record<string, unknown>> };

/** The codes an `errorResponses` schema lists (its `code` is a literal or a union of literals). */
function documentedCodes(schema: Record<string, unknown> | undefined): ErrorCode[] {
  const code = (schema?.properties as Record<string, { const?: string; anyOf?: { const?: string }[] }> | undefined)
    ?.code;
  if (!code) return [];
  const literals = code.anyOf ?? [code];
  return literals.map((literal) => literal.const).filter((value): value is ErrorCode => value !== undefined);
}

/**
 * Completes each route's documented responses: a description on every success status, and the
 * errors any route can answer with that routes do not list one by one (500 everywhere; 413 and 415
 * wherever a body is read).
 */
function documentCommonResponses(schema: RouteSchema, methods: string[]): RouteSchema {
  if (!schema.response) return schema;
  const response: Record<string, Record<string, unknown>> = {};
  for (const [status, value] of Object.entries(schema.response)) {
    const description = successDescriptions[status];
    response[status] = description && value.description === undefined ? { ...value, description } : value;
  }
  const common = errorResponses('INTERNAL_ERROR', ...(schema.body ? (['PAYLOAD_TOO_LARGE'] as const) : []));
  for (const [status, value] of Object.entries(common)) response[status] ??= value as Record<string, unknown>;
  // Any route can answer INVALID_INPUT: a malformed URL, or a value PostgreSQL cannot store (storable-input).
  const listed400 = documentedCodes(response['400']);
  if (!listed400.includes('INVALID_INPUT')) {
    response['400'] = errorResponses(...listed400, 'INVALID_INPUT')[400] as Record<string, unknown>;
  }
  // A write carried by the session cookie from another origin (docs/security.md).
  const security = (schema.security ?? []) as Record<string, unknown>[];
  const cookieWrite =
    security.some((requirement) => 'sessionCookie' in requirement) &&
    methods.some((method) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method));
  const listed403 = documentedCodes(response['403']);
  if (cookieWrite && !listed403.includes('ORIGIN_NOT_ALLOWED')) {
    response['403'] = errorResponses(...listed403, 'ORIGIN_NOT_ALLOWED')[403] as Record<string, unknown>;
  }
  if (schema.body && !response['415']) {
    response['415'] = {
      ...(errorResponses('INVALID_INPUT')[400] as Record<string, unknown>),
      description: 'INVALID_INPUT: the body is not application/json',
    };
  }
  return { ...schema, response };
}

/** The product's name, as the dashboard shows it, on the reference and in its page title. */
export const PRODUCT_NAME = 'Web Push';

/** `/api/v1/apps/:appId` → `/api/v1/apps/{appId}`: the OpenAPI form of a route's URL. */
const openApiPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

/**
 * Adds the reference text of openapi/operations.ts: the description (the route's own wins) and the
 * examples, put on the body and every success answer as `examples` (the media type's `example`).
 */
function documentOperation(schema: RouteSchema, method: string, url: string): RouteSchema {
  const doc = operations[`${method} ${openApiPath(url)}`];
  if (!doc) return schema;
  const described = { ...schema, description: (schema.description as string | undefined) || doc.description };
  if (doc.request !== undefined && described.body) {
    described.body = { ...(described.body as Record<string, unknown>), examples: [doc.request] };
  }
  if (doc.response !== undefined && described.response) {
    const response = { ...described.response };
    for (const status of Object.keys(response).filter((code) => code.startsWith('2')))
      response[status] = { ...response[status], examples: [doc.response] };
    described.response = response;
  }
  return described;
}

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests;
 * served at /api/v1/openapi.json with a reference UI at /docs.
 */
/** apps/dashboard/src/favicon.svg, which the API cannot read at run time (the image ships without sources). */
const MARK_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="40" height="40"><title>Web Push</title>' +
  '<rect width="32" height="32" rx="7" fill="#2f4fd8"/><path d="M16 7a6 6 0 0 0-6 6v4l-2 3v1h16v-1l-2-3v-4a6 6 0 0 0-6-6zm-2.5 16a2.5 2.5 0 0 0 5 0z" fill="#fff"/></svg>';

export default fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: `${PRODUCT_NAME} API`,
          version: '1.0.0',
          description: `[← Back to the dashboard](${app.config.publicUrl}/)\n\nSend web push notifications to the browser subscriptions of your apps. Every error has the body \`{error, code}\` (plus \`upgrade_url\` on plan-limit codes). Error messages are Japanese, by contract: clients branch on \`code\`, whose English meaning the repository's docs/error-codes.md lists.`,
        },
        servers: [{ url: app.config.publicUrl }],
        // Grouped in the order a customer meets them: sending first, accounts last.
        tags,
        components: {
          securitySchemes: {
            apiKey: { type: 'http', scheme: 'bearer', description: 'API key `wpk_…`' },
            session: {
              type: 'http',
              scheme: 'bearer',
              description:
                'Session token `wps_…` (or the `wp_session` cookie); on /apps/** also a personal access token `wpt_…`',
            },
            sessionCookie: { type: 'apiKey', in: 'cookie', name: 'wp_session' },
          },
        },
      },
      // A resource's root route is registered as `/` under its prefix; document it as `/api/v1/apps`,
      // not `/api/v1/apps/` (both are served).
      transform: ({ schema, url, route }) => {
        const methods = ([] as string[]).concat(route.method);
        const path = url.length > 1 ? url.replace(/\/+$/, '') : url;
        const method = methods.find((name) => name !== 'HEAD') ?? methods[0] ?? 'GET';
        return {
          schema: schema
            ? documentCommonResponses(documentOperation(schema as RouteSchema, method, path), methods)
            : schema,
          url: path,
        };
      },
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      // The service's own mark (the dashboard's icon) in the header and the tab, not swagger-ui's.
      logo: { type: 'image/svg+xml', content: Buffer.from(MARK_SVG), href: '/', target: '_self' },
      theme: {
        title: `${PRODUCT_NAME} — API reference`,
        favicon: [
          { filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: Buffer.from(MARK_SVG) },
        ],
      },
      // Tags in the document's order (sending first), operations as each tag lists them.
      uiConfig: { docExpansion: 'list', deepLinking: true },
    });
    app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'swagger', dependencies: ['config'] },
);
