import { type Queues, registerQueueDepthGauge } from '@webpush/queue';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface WorkerMetrics {
  readonly registry: Registry;
  /** Pushes by outcome: sent, expired, retry, failed. */
  readonly pushes: Counter<'outcome'>;
  /** Time of one push, encryption and the push service's answer included. */
  readonly pushDuration: Histogram<'outcome'>;
  /** Chunks whose outcome was recorded, or found already recorded (a re-run after a crash). */
  readonly chunks: Counter<'result'>;
  /** Notifications the reconciler queued again because Redis had no job for them. */
  readonly requeued: Counter;
  /** One push's duration, in ms; label children are bound once, not looked up per push. */
  observePush(outcome: PushOutcomeKind, ms: number): void;
  /** A chunk's pushes by outcome, added once per chunk rather than once per push. */
  countPushes(counts: Record<PushOutcomeKind, number>): void;
}

type PushOutcomeKind = 'sent' | 'expired' | 'retry' | 'failed';
const OUTCOMES: readonly PushOutcomeKind[] = ['sent', 'expired', 'retry', 'failed'];

/** The worker's Prometheus metrics, on a registry of its own; served at the health server's `/metrics`. */
export function createWorkerMetrics(queues: Queues, onCollectError: (error: unknown) => void): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerQueueDepthGauge(registry, queues, onCollectError);
  const pushes = new Counter({
    name: 'webpush_pushes_total',
    help: 'Pushes sent to push services, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const pushDuration = new Histogram({
    name: 'webpush_push_duration_seconds',
    help: 'Duration of one push (encryption and push-service round trip)',
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const durationOf = {
    sent: pushDuration.labels({ outcome: 'sent' }),
    expired: pushDuration.labels({ outcome: 'expired' }),
    retry: pushDuration.labels({ outcome: 'retry' }),
    failed: pushDuration.labels({ outcome: 'failed' }),
  } satisfies Record<PushOutcomeKind, { observe(value: number): void }>;
  return {
    registry,
    pushes,
    pushDuration,
    chunks: new Counter({
      name: 'webpush_delivery_chunks_total',
      help: 'Delivery chunks finished: recorded, or already recorded by an earlier run',
      labelNames: ['result'],
      registers: [registry],
    }),
    requeued: new Counter({
      name: 'webpush_notifications_requeued_total',
      help: 'Unfinished notifications queued again by the reconciler',
      registers: [registry],
    }),
    observePush: (outcome, ms) => durationOf[outcome].observe(ms / 1000),
    countPushes(counts) {
      for (const outcome of OUTCOMES) if (counts[outcome] > 0) pushes.inc({ outcome }, counts[outcome]);
    },
  };
}
