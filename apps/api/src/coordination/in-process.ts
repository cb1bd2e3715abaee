import { createDatabase } from '@webpush/db';
import { principalNotifyChannel } from '@webpush/queue';
import type { FastifyBaseLogger } from 'fastify';
import {
  type Coordination,
  CoordinationTakenError,
  type CounterReading,
  type EngagementBuffer,
  type PrincipalChannel,
} from './coordination.js';
import type { CounterBatch, WindowCount } from './counter-batch.js';

interface Counter {
  count: number;
  expiresAt: number;
}

/** How often expired counters and set-once keys are swept out of memory. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * The counters, set-once keys and engagement buffer of ONE API process, in its memory: what the
 * embedded mode of `pnpm dev` and `pnpm start` runs on instead of Redis. The same fixed windows as
 * the Redis store (a window starts with its first count), the same keys.
 *
 * Exactly one API process may use it per database: it holds a PostgreSQL advisory lock for its
 * lifetime, and a second process is refused at start (CoordinationTakenError). Principal changes
 * travel over PostgreSQL's LISTEN/NOTIFY, so `pnpm admin` still reaches the running API.
 *
 * What it does not keep: the counters start from zero and buffered engagement events are lost when
 * the process dies without closing (a clean stop flushes them).
 */
export async function inProcessCoordination(
  databaseUrl: string,
  keyPrefix: string,
  log: FastifyBaseLogger,
): Promise<Coordination> {
  const database = createDatabase(databaseUrl, { max: 2 });
  const { sql } = database;
  const lockName = `webpush-api:${keyPrefix}`;
  // A session-level lock on a connection of its own, held until this process ends (or its
  // connection does): PostgreSQL releases it for a process that died in any way.
  let held: Awaited<ReturnType<typeof sql.reserve>>;
  try {
    held = await sql.reserve();
    const [row] = await held<
      { locked: boolean }[]
    >`select pg_try_advisory_lock(hashtextextended(${lockName}, 0)) as locked`;
    if (!row?.locked) {
      held.release();
      throw new CoordinationTakenError(
        'another API process already runs on this database with in-process coordination (COORDINATION=process is for exactly one API process): stop it first, or run on PostgreSQL and Redis (docs/deployment.md)',
      );
    }
  } catch (error) {
    await database.close();
    throw error;
  }

  const counters = new Map<string, Counter>();
  const onceKeys = new Map<string, number>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, counter] of counters) if (counter.expiresAt <= now) counters.delete(key);
    for (const [key, expiresAt] of onceKeys) if (expiresAt <= now) onceKeys.delete(key);
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  const count = (key: string, windowMs: number): WindowCount => {
    const now = Date.now();
    let counter = counters.get(key);
    if (counter === undefined || counter.expiresAt <= now) {
      counter = { count: 0, expiresAt: now + windowMs };
      counters.set(key, counter);
    }
    counter.count++;
    return { current: counter.count, ttl: counter.expiresAt - now };
  };

  const entries: string[] = [];
  let flushLock: { token: string; expiresAt: number } | null = null;
  const holds = (token: string) => flushLock !== null && flushLock.token === token && flushLock.expiresAt > Date.now();
  const engagement: EngagementBuffer = {
    push: async (entry) => {
      entries.push(entry);
    },
    lock: async (token, ms) => {
      if (flushLock !== null && flushLock.expiresAt > Date.now()) return false;
      flushLock = { token, expiresAt: Date.now() + ms };
      return true;
    },
    read: async (n) => entries.slice(0, n),
    trim: async (token, n) => {
      if (!holds(token)) return false;
      entries.splice(0, n);
      return true;
    },
    unlock: async (token) => {
      if (flushLock?.token === token) flushLock = null;
    },
    length: async () => entries.length,
  };

  const counterBatch: CounterBatch = {
    increment: async ({ key, windowMs, max, entry }) => {
      const result = count(key, windowMs);
      if (entry && result.current <= max) entries.push(entry);
      return result;
    },
  };

  const channel = principalNotifyChannel(keyPrefix);
  const principals: PrincipalChannel = {
    publish: async (message) => {
      await sql.notify(channel, message);
    },
    async listen({ onMessage, onLost }) {
      // postgres.js listens on a connection of its own and listens again after a reconnect, calling
      // `onlisten` each time: every call after the first follows a loss.
      let first = true;
      const subscription = await sql.listen(channel, onMessage, () => {
        if (first) first = false;
        else onLost();
      });
      return { close: () => subscription.unlisten() };
    },
  };

  let closed = false;
  return {
    kind: 'process',
    counterBatch,
    rateLimitRedis: null,
    countRequest: (key, windowMs, max, entry) => counterBatch.increment({ key, windowMs, max, entry }),
    increment: async (key, windowMs) => count(key, windowMs).current,
    read: async (key): Promise<CounterReading> => {
      const counter = counters.get(key);
      const now = Date.now();
      if (counter === undefined || counter.expiresAt <= now) return { count: 0, ttlMs: -2 };
      return { count: counter.count, ttlMs: counter.expiresAt - now };
    },
    setOnce: async (key, ttlMs) => {
      const now = Date.now();
      const expiresAt = onceKeys.get(key);
      if (expiresAt !== undefined && expiresAt > now) return false;
      onceKeys.set(key, now + ttlMs);
      return true;
    },
    engagement,
    principals,
    // The lock's own connection: while it answers, this process still holds the lock.
    ping: async () => {
      await held`select 1`;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      try {
        await held`select pg_advisory_unlock(hashtextextended(${lockName}, 0))`;
      } catch (error) {
        log.warn(
          { err: error },
          'in-process coordination: the lock could not be released (its connection ends anyway)',
        );
      }
      held.release();
      await database.close();
    },
  };
}
