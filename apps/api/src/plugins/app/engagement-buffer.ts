import { randomUUID } from 'node:crypto';
import { countEngagementEvents, type EngagementEvent, type EngagementType } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface FlushResult {
  /** Events that were new (not counted before). */
  counted: number;
  /** Statements sent to PostgreSQL: one per batch of up to EVENTS_FLUSH_BATCH events. */
  batches: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    engagement: {
      /** Buffers one event in Redis (one RPUSH); counted by the next flush. */
      record(event: EngagementEvent): Promise<void>;
      /** Moves every buffered event into PostgreSQL now (the timer does this every EVENTS_FLUSH_INTERVAL_MS). */
      flush(): Promise<FlushResult>;
    };
  }
}

const TYPE_CODES: Record<EngagementType, string> = { shown: 's', clicked: 'c' };

/** `<notification>|<subscription>|<s|c>[|<action>]`: an action is `A-Z a-z 0-9 _ -`, never a `|`. */
function encode(event: EngagementEvent): string {
  const entry = `${event.notificationId}|${event.subscriptionId}|${TYPE_CODES[event.type]}`;
  return event.action === undefined ? entry : `${entry}|${event.action}`;
}

function decode(entry: string): EngagementEvent | null {
  const [notificationId, subscriptionId, code, action] = entry.split('|');
  if (notificationId === undefined || subscriptionId === undefined) return null;
  if (code === 's') return { notificationId, subscriptionId, type: 'shown' };
  if (code === 'c') return { notificationId, subscriptionId, type: 'clicked', ...(action ? { action } : {}) };
  return null;
}

const LOCK_MS = 60_000;
/** Deletes the lock only if it is still ours. */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
/**
 * Trims the counted batch only while we still hold the lock: a flusher whose lock expired (a flush
 * slower than LOCK_MS) must not trim what another flusher has read meanwhile. Untrimmed, the batch
 * is simply counted again by the next flush, which changes nothing.
 */
const TRIM_IF_OWNER =
  "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('ltrim', KEYS[2], ARGV[2], -1) return 1 end return 0";

/**
 * Engagement events are cheap under a burst: a request costs one indexed read and one RPUSH, and a
 * flush (one API instance at a time, under a Redis lock) turns up to EVENTS_FLUSH_BATCH events into
 * ONE statement: a multi-row insert-or-ignore into `notification_events` (the durable "counted
 * once" record) plus one UPDATE per notification. 100,000 clicks in a minute become about 60
 * statements and, per notification, one row update per flush instead of 100,000.
 *
 * A flush reads a batch (LRANGE), commits it, then trims it (LTRIM); a process dying in between
 * leaves the batch in Redis and the next flush repeats it, which counts nothing twice. Closing the
 * API flushes once more. What can be lost (docs/engagement.md): events in the Redis list when
 * Redis itself loses its data, and events whose RPUSH failed while Redis was unreachable (the API
 * still answers 202 and logs it).
 */
export default fp(
  async (app: FastifyInstance) => {
    const { redisKeyPrefix, events: settings } = app.config;
    const listKey = `${redisKeyPrefix}:engagement:buffer`;
    // The trim script takes the lock and the list together, so on a Redis Cluster both must hash to
    // one slot: a key without `{}` hashes as a whole, and `{<list key>}…` hashes as the list key.
    const lockKey = `{${listKey}}:flush-lock`;

    const record = async (event: EngagementEvent) => {
      await app.redis.rpush(listKey, encode(event));
    };

    const flush = async (): Promise<FlushResult> => {
      const token = randomUUID();
      const result: FlushResult = { counted: 0, batches: 0 };
      if ((await app.redis.set(lockKey, token, 'PX', LOCK_MS, 'NX')) !== 'OK') return result;
      try {
        for (;;) {
          const entries = await app.redis.lrange(listKey, 0, settings.flushBatch - 1);
          if (entries.length === 0) break;
          const batch = entries.map(decode).filter((event): event is EngagementEvent => event !== null);
          result.counted += await countEngagementEvents(app.db, batch);
          result.batches++;
          const trimmed = await app.redis.eval(TRIM_IF_OWNER, 2, lockKey, listKey, token, entries.length);
          if (trimmed !== 1 || entries.length < settings.flushBatch) break;
        }
      } finally {
        await app.redis.eval(RELEASE, 1, lockKey, token);
      }
      return result;
    };

    // One flush at a time per process: the timer, and the last one on close, queue behind each other.
    let running: Promise<unknown> = Promise.resolve();
    const flushInBackground = () => {
      running = running.then(() =>
        flush().catch((error: unknown) => app.log.error({ err: error }, 'engagement flush failed; retrying later')),
      );
      return running;
    };
    const timer = setInterval(flushInBackground, settings.flushIntervalMs);
    timer.unref();
    // Registered after the db and redis plugins, so this runs before they close (LIFO).
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await flushInBackground();
    });

    app.decorate('engagement', { record, flush });
  },
  { name: 'engagement-buffer', dependencies: ['config', 'db', 'redis'] },
);
