import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Browser-facing routes (/subscribe, /vapid-public-key, /events) are called from customers' pages on any
 * origin with a `subscribe_only` key in the Authorization header, never with cookies, so any origin
 * is allowed and credentials are not. `*` does not cover Authorization, hence the explicit list.
 */
export const BROWSER_ROUTES = new Set(['/api/v1/subscribe', '/api/v1/vapid-public-key', '/api/v1/events']);

/** What a preflight of a browser route answers (and what @fastify/cors answered with these options). */
const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
  'content-length': '0',
};

/** First among a browser route's own hooks, so an auth or rate-limit error is readable cross-origin too. */
function allowAnyOrigin(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
  reply.header('access-control-allow-origin', '*');
  done();
}

const withoutTrailingSlash = (url: string) => (url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url);

/**
 * CORS for the three browser routes only, written out rather than through @fastify/cors: the
 * plugin can only tell routes apart with a `delegator`, which runs for every request of the API
 * (/notify and the dashboard's included) and copies and normalises the options each time, a visible
 * share of the API's CPU under `POST /events` load for two constant headers (docs/performance.md). Here the
 * other routes run no CORS code at all, and the browser routes set one header.
 *
 * A preflight (OPTIONS) of a browser route answers 204 with the policy, with or without `Origin`
 * and `Access-Control-Request-Method` (a bare OPTIONS gets the same, never a text/plain 400); an
 * OPTIONS of any other path is the API's 404.
 */
export default fp(
  async (app: FastifyInstance) => {
    app.addHook('onRoute', (route) => {
      if (route.method === 'OPTIONS' || !BROWSER_ROUTES.has(withoutTrailingSlash(route.url))) return;
      const own =
        route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
      route.onRequest = [allowAnyOrigin, ...own];
    });

    app.options('*', { schema: { hide: true } }, (request, reply) => {
      const path = withoutTrailingSlash(request.url.split('?', 1)[0] ?? '');
      if (!BROWSER_ROUTES.has(path)) {
        reply.callNotFound();
        return;
      }
      reply.code(204).headers(PREFLIGHT_HEADERS).send();
    });
  },
  { name: 'cors' },
);
