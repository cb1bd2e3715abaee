import type { FastifyInstance } from 'fastify';
import { opsBasicAuth } from '../plugins/app/ops-auth.js';

/**
 * Prometheus scrape endpoint, behind the operators' basic auth. Closed by default: without
 * OPS_USERNAME and OPS_PASSWORD the route does not exist (404 NOT_FOUND), like Bull Board.
 */
export default async function metricsRoutes(app: FastifyInstance) {
  if (!app.config.ops || app.config.opsListener) return;
  mountMetrics(app, app);
}

/** `/metrics` of `app` on `target`: the API itself, or the ops listener (OPS_PORT). */
export function mountMetrics(target: FastifyInstance, app: FastifyInstance): void {
  target.get('/metrics', { schema: { hide: true }, onRequest: [opsBasicAuth(app)] }, async (_request, reply) => {
    const body = await app.metrics.registry.metrics();
    return reply.type(app.metrics.registry.contentType).send(body);
  });
}
