import type { FastifyInstance } from 'fastify';
import { opsBasicAuth } from '../plugins/app/ops-auth.js';

/** Prometheus scrape endpoint; behind the operators' basic auth when OPS_USERNAME/OPS_PASSWORD are set. */
export default async function metricsRoutes(app: FastifyInstance) {
  const { ops } = app.config;
  app.get(
    '/metrics',
    { schema: { hide: true }, onRequest: ops ? [opsBasicAuth(ops, app.config.publicUrl)] : [] },
    async (_request, reply) => {
      const body = await app.metrics.registry.metrics();
      return reply.type(app.metrics.registry.contentType).send(body);
    },
  );
}
