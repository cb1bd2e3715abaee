import type { FastifyInstance } from 'fastify';
import { opsBasicAuth } from '../plugins/app/ops-auth.js';

/**
 * Prometheus scrape endpoint, behind the operators' basic auth. Closed by default: without
 * OPS_USERNAME and OPS_PASSWORD the route does not exist (404 NOT_FOUND), like Bull Board.
 */
export default async function metricsRoutes(app: FastifyInstance) {
  if (!app.config.ops) return;
  app.get('/metrics', { schema: { hide: true }, onRequest: [opsBasicAuth(app)] }, async (_request, reply) => {
    const body = await app.metrics.registry.metrics();
    return reply.type(app.metrics.registry.contentType).send(body);
  });
}
