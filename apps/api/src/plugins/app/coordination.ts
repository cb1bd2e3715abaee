import { closeRedisConnection, createRedisConnection, type RedisConnection } from '@webpush/queue';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Coordination } from '../../coordination/coordination.js';
import { inProcessCoordination } from '../../coordination/in-process.js';
import { redisCoordination } from '../../coordination/redis.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * What the API shares between its instances besides PostgreSQL (counters, set-once keys, the
     * engagement buffer, principal changes): in Redis, or in this process (COORDINATION=process).
     */
    coordination: Coordination;
    /**
     * The single Redis, or the Redis Cluster when REDIS_CLUSTER_NODES is set. Only when the
     * coordination or the queues live there: reading it otherwise throws.
     */
    redis: RedisConnection;
  }
}

export default fp(
  async (app: FastifyInstance) => {
    const { coordination: kind, queueBackend, redisKeyPrefix } = app.config;
    // Taken first: a second API process is refused before it opens anything else.
    const inProcess =
      kind === 'process' ? await inProcessCoordination(app.config.databaseUrl, redisKeyPrefix, app.log) : null;
    if (inProcess) app.addHook('onClose', () => inProcess.close());
    let redis: RedisConnection | null = null;
    if (kind === 'redis' || queueBackend === 'redis') {
      const connection = createRedisConnection(app.config, 'producer');
      redis = connection;
      connection.on('error', (error) => app.log.warn({ err: error }, 'redis connection error'));
      // Wait for the first connection so the first requests are rate-limited like every other one.
      await new Promise<void>((resolve) => {
        if (connection.status === 'ready') resolve();
        else connection.once('ready', () => resolve());
        setTimeout(resolve, 5_000).unref();
      });
      app.decorate<RedisConnection>('redis', connection);
      app.addHook('onClose', async () => {
        await closeRedisConnection(connection);
      });
    } else {
      app.decorate('redis', {
        getter(): RedisConnection {
          throw new Error('no Redis: COORDINATION=process and QUEUE_BACKEND=postgres');
        },
      });
    }
    app.decorate('coordination', inProcess ?? redisCoordination(redis as RedisConnection, redisKeyPrefix, app.log));
  },
  { name: 'coordination', dependencies: ['config'] },
);
