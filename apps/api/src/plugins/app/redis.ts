import { closeRedisConnection, createRedisConnection, type RedisConnection } from '@webpush/queue';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The single Redis, or the Redis Cluster when REDIS_CLUSTER_NODES is set. */
    redis: RedisConnection;
  }
}

export default fp(
  async (app: FastifyInstance) => {
    const redis = createRedisConnection(app.config, 'producer');
    redis.on('error', (error) => app.log.warn({ err: error }, 'redis connection error'));
    // Wait for the first connection so the first requests are rate-limited like every other one.
    await new Promise<void>((resolve) => {
      if (redis.status === 'ready') resolve();
      else redis.once('ready', () => resolve());
      setTimeout(resolve, 5_000).unref();
    });
    app.decorate<RedisConnection>('redis', redis);
    app.addHook('onClose', async () => {
      await closeRedisConnection(redis);
    });
  },
  { name: 'redis', dependencies: ['config'] },
);
