/** A fixed-window counter's state after one increment, as @fastify/rate-limit's Redis store answers it. */
export interface WindowCount {
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

export interface CounterIncrement {
  /** The counter's whole key (under REDIS_KEY_PREFIX). */
  key: string;
  windowMs: number;
  max: number;
  /** Pushed on the engagement buffer only when this increment is within `max` (POST /events' event). */
  entry?: string;
}

/** Increments of the request counters (redis-counter-batch.ts on a single Redis; in-process.ts). */
export interface CounterBatch {
  increment(increment: CounterIncrement): Promise<WindowCount>;
}
