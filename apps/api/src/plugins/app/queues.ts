import { createQueues, type Queues, queueTransport } from '@webpush/queue';
import { bullmqTelemetry } from '@webpush/tracing';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    /** The delivery queues, producer side; on the shared fail-fast Redis connection, or in PostgreSQL (QUEUE_BACKEND). */
    queues: Queues;
  }
}

export default fp(
  async (app: FastifyInstance) => {
    const queues = createQueues(
      queueTransport(app.config, () => app.redis),
      { telemetry: bullmqTelemetry() },
    );
    for (const queue of queues.all()) queue.on('error', (error) => app.log.warn({ err: error }, 'queue error'));
    app.decorate('queues', queues);
    app.addHook('onClose', async () => queues.close());
  },
  { name: 'queues', dependencies: ['config', 'coordination'] },
);
