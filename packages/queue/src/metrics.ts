import { Gauge, type Registry } from 'prom-client';
import { type Queues, queueDepths } from './queues.js';

/**
 * `webpush_queue_jobs{queue,state}`: the same gauge on the API's and the worker's `/metrics`, read
 * from Redis at scrape time. A Redis failure leaves the gauge empty and is reported, not thrown.
 */
export function registerQueueDepthGauge(registry: Registry, queues: Queues, onError: (error: unknown) => void): void {
  new Gauge({
    name: 'webpush_queue_jobs',
    help: 'Jobs in the delivery queues, by state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const { queue, state, count } of await queueDepths(queues)) this.set({ queue, state }, count);
      } catch (error) {
        onError(error);
      }
    },
  });
}
