import type { FastifyInstance } from 'fastify';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const checks = await Promise.allSettled([app.pingDatabase(), app.coordination.ping()]);
    const [database, shared] = checks.map((check) => (check.status === 'fulfilled' ? 'ok' : 'down'));
    // Named after what the API shares its counters through: Redis, or this process (`coordination`).
    const name = app.coordination.kind === 'redis' ? 'redis' : 'coordination';
    const body = { database, [name]: shared };
    if (database !== 'ok' || shared !== 'ok') {
      request.log.warn(body, 'not ready');
      return reply.code(503).send({ status: 'unavailable', ...body });
    }
    return { status: 'ok', ...body };
  });
}
