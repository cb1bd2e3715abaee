import type { FastifyInstance } from 'fastify';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const checks = await Promise.allSettled([app.pingDatabase(), app.redis.ping()]);
    const [database, redis] = checks.map((check) => (check.status === 'fulfilled' ? 'ok' : 'down'));
    if (database !== 'ok' || redis !== 'ok') {
      request.log.warn({ database, redis }, 'not ready');
      return reply.code(503).send({ status: 'unavailable', database, redis });
    }
    return { status: 'ok', database, redis };
  });
}
