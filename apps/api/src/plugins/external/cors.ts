import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Browser-facing routes (/subscribe, /vapid-public-key, /events) are called from customers' pages on any
 * origin with a `subscribe_only` key in the Authorization header, never with cookies, so any origin
 * is allowed and credentials are not. `*` does not cover Authorization, hence the explicit list.
 */
export const BROWSER_ROUTES = new Set(['/api/v1/subscribe', '/api/v1/vapid-public-key', '/api/v1/events']);

export default fp(async (app: FastifyInstance) => {
  await app.register(cors, {
    delegator: (request, callback) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      if (!BROWSER_ROUTES.has(path)) {
        callback(null, { origin: false });
        return;
      }
      callback(null, {
        origin: '*',
        methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
        allowedHeaders: ['authorization', 'content-type'],
        maxAge: 600,
        // A bare OPTIONS (no Origin or Access-Control-Request-Method) gets the same 204, not the
        // plugin's text/plain 400 outside the contract's error body.
        strictPreflight: false,
      });
    },
  });
});
