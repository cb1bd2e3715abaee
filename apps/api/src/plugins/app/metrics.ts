import { registerQueueDepthGauge } from '@webpush/queue';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export interface ApiMetrics {
  readonly registry: Registry;
  /** Notifications accepted (202), by route. */
  readonly notificationsAccepted: Counter<'route'>;
  /** Sends (targets) of accepted notifications. */
  readonly sendsAccepted: Counter;
  /** Send requests answered with an error, by error code. */
  readonly notificationsRefused: Counter<'code'>;
  /** Subscriber exports this process streams (each a thread and a database connection; two at most). */
  readonly subscriberExports: Gauge;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ApiMetrics;
  }
}

/** Prometheus metrics of this API instance, on a registry of its own (several apps may share a process in tests). */
export default fp(
  async (app: FastifyInstance) => {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const metrics: ApiMetrics = {
      registry,
      notificationsAccepted: new Counter({
        name: 'webpush_notifications_accepted_total',
        help: 'Notifications accepted (202)',
        labelNames: ['route'],
        registers: [registry],
      }),
      sendsAccepted: new Counter({
        name: 'webpush_sends_accepted_total',
        help: 'Sends (targets) of accepted notifications',
        registers: [registry],
      }),
      notificationsRefused: new Counter({
        name: 'webpush_notifications_refused_total',
        help: 'Send requests answered with an error, by code',
        labelNames: ['code'],
        registers: [registry],
      }),
      subscriberExports: new Gauge({
        name: 'webpush_subscriber_exports_running',
        help: 'Subscriber exports being streamed by this API process, their slots until their thread has exited',
        registers: [registry],
      }),
    };
    registerQueueDepthGauge(registry, app.queues, (error) =>
      app.log.warn({ err: error }, 'queue depth unavailable for metrics'),
    );
    app.decorate('metrics', metrics);
  },
  { name: 'metrics', dependencies: ['queues'] },
);
