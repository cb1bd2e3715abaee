import type { RedisConnection } from '@webpush/queue';
import type { CounterBatch, WindowCount } from './counter-batch.js';

export type { CounterBatch, CounterIncrement, WindowCount } from './counter-batch.js';

/** A counter's value and the milliseconds left in its window (0 and -2 when it does not exist). */
export interface CounterReading {
  count: number;
  ttlMs: number;
}

/**
 * The queue of engagement events between POST /events and the flush that counts them in
 * PostgreSQL, and the lock that lets one flusher at a time read it.
 */
export interface EngagementBuffer {
  /** Appends one encoded event. */
  push(entry: string): Promise<void>;
  /** Takes the flush lock for `ms` under `token`; false when someone else holds it. */
  lock(token: string, ms: number): Promise<boolean>;
  /** The first `count` entries, oldest first, without removing them. */
  read(count: number): Promise<string[]>;
  /** Removes the first `count` entries, only while `token` still holds the lock: false when it does not. */
  trim(token: string, count: number): Promise<boolean>;
  /** Releases the lock if `token` still holds it. */
  unlock(token: string): Promise<void>;
  /** Entries buffered now (tests, metrics). */
  length(): Promise<number>;
}

/** Where API instances hear that cached API-key principals changed. */
export interface PrincipalChannel {
  /** Sends one message to every listener, this instance's included. */
  publish(message: string): Promise<void>;
  /**
   * Listens: `onMessage` for each message, `onLost` whenever the listener may have missed one (a
   * dropped connection, a reconnect); resolves once the subscription is in effect.
   */
  listen(handlers: { onMessage(message: string): void; onLost(): void }): Promise<{ close(): Promise<void> }>;
}

/**
 * Everything the API shares between its instances besides PostgreSQL: rate-limit and budget
 * counters, set-once keys, the engagement buffer, principal changes and the readiness ping.
 * `redis` (every instance together) or `process` (this process's memory, exactly one API process:
 * in-process.ts). Keys are whole keys under REDIS_KEY_PREFIX, whatever the implementation.
 */
export interface Coordination {
  readonly kind: 'redis' | 'process';
  /**
   * The request counters' increments (@fastify/rate-limit's fixed windows), each optionally pushing
   * an engagement entry when within its `max`; null on a Redis Cluster, where the library's own
   * Redis store counts (`rateLimitRedis`).
   */
  readonly counterBatch: CounterBatch | null;
  /** The Redis connection @fastify/rate-limit counts in when `counterBatch` is null. */
  readonly rateLimitRedis: RedisConnection | null;
  /**
   * Counts one request on `key` and, within `max`, buffers `entry` (POST /events): the counter batch
   * where there is one, else a script of its own followed by the push.
   */
  countRequest(key: string, windowMs: number, max: number, entry: string): Promise<WindowCount>;
  /** Adds one to `key`; the first count of a window sets the window to `windowMs`. Resolves the new count. */
  increment(key: string, windowMs: number): Promise<number>;
  /** A counter's current value and time left, without counting. */
  read(key: string): Promise<CounterReading>;
  /** True the first time `key` is set within `ttlMs`, false while it is still set. */
  setOnce(key: string, ttlMs: number): Promise<boolean>;
  readonly engagement: EngagementBuffer;
  readonly principals: PrincipalChannel;
  /** Resolves while the coordination can serve (GET /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A second API process found the in-process coordination of this database already taken. */
export class CoordinationTakenError extends Error {
  override readonly name = 'CoordinationTakenError';
}
