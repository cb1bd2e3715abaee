import { randomUUID } from 'node:crypto';
import { countEngagementEvents, type EngagementEvent, type EngagementType } from '@webpush/db';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
      /**
       * POST /events: counts the request against the API-key limit and buffers its event (null:
       * nothing to count) in one Redis script; throws RATE_LIMITED over the limit, buffering nothing.
       */
      report(request: FastifyRequest, reply: FastifyReply, event: EngagementEvent | null): Promise<void>;
      /**
       * The error handler of a route that counts through `report`: a request that failed before
       * (bad key, bad body) is counted on its own, so every request spends the budget once.
       */
      countFailed(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<never>;
      /**
       * Moves every buffered event into PostgreSQL, after any flush of this process already under way
       * (the timer does this every EVENTS_FLUSH_INTERVAL_MS). Another instance's flush in progress
       * makes it return at once, counting nothing: that flush counts the events.
       */
      flush(): Promise<FlushResult>;
    };
  }
}

/** The Redis list that buffers engagement events until a flush counts them. */
export const engagementBufferKey = (redisKeyPrefix: string) => `${redisKeyPrefix}:engagement:buffer`;

const TYPE_CODES: Record<EngagementType, string> = { shown: 's', clicked: 'c', converted: 'v' };

/**
 * By subscription: `<notification>|<subscription>|<s|c|v>[|<detail>]`. By endpoint:
 * `e|<app>|<notification>|<s|c|v>|<detail or empty>|<endpoint>`, the endpoint last since it is the
 * only part that may hold a `|`. The detail is a click's action (`A-Z a-z 0-9 _ -`) or a
 * conversion's value (a number).
 */
function encode(event: EngagementEvent): string {
  const code = TYPE_CODES[event.type];
  const detail = event.action ?? (event.value === undefined ? undefined : String(event.value));
  if ('endpoint' in event) {
    return `e|${event.appId}|${event.notificationId}|${code}|${detail ?? ''}|${event.endpoint}`;
  }
  const entry = `${event.notificationId}|${event.subscriptionId}|${code}`;
  return detail === undefined ? entry : `${entry}|${detail}`;
}

const typeOf = (code: string | undefined): EngagementType | null =>
  code === 's' ? 'shown' : code === 'c' ? 'clicked' : code === 'v' ? 'converted' : null;

/** A click's action or a conversion's value, from an entry's detail; nothing for `shown`. */
function detailOf(type: EngagementType, detail: string | undefined): { action?: string; value?: number } {
  if (!detail) return {};
  if (type === 'clicked') return { action: detail };
  const value = Number(detail);
  return type === 'converted' && Number.isFinite(value) && value >= 0 ? { value } : {};
}

function decode(entry: string): EngagementEvent | null {
  if (entry.startsWith('e|')) {
    const parts = entry.split('|');
    const [, appId, notificationId, code, detail] = parts;
    const type = typeOf(code);
    const endpoint = parts.slice(5).join('|');
    if (!appId || !notificationId || type === null || endpoint === '') return null;
    return { appId, notificationId, endpoint, type, ...detailOf(type, detail) };
  }
  const [notificationId, subscriptionId, code, detail] = entry.split('|');
  const type = typeOf(code);
  if (notificationId === undefined || subscriptionId === undefined || type === null) return null;
  return { notificationId, subscriptionId, type, ...detailOf(type, detail) };
}

/**
 * On a Redis Cluster: the API-key counter exactly as @fastify/rate-limit's Redis store keeps it
 * (INCR, the window set on the first request, PTTL after). On a single Redis the counter batch
 * (redis-counter-batch.ts) counts it and pushes the event within the limit, in one script.
 */
const COUNT_REQUEST = `local current = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ttl) else ttl = redis.call('PTTL', KEYS[1]) end
return {current, ttl}`;

interface CountingRedis {
  countRequest(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<[number, number]>;
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
    const listKey = engagementBufferKey(redisKeyPrefix);
    // The trim script takes the lock and the list together, so on a Redis Cluster both must hash to
    // one slot: a key without `{}` hashes as a whole, and `{<list key>}…` hashes as the list key.
    const lockKey = `{${listKey}}:flush-lock`;

    const record = async (event: EngagementEvent) => {
      await app.redis.rpush(listKey, encode(event));
    };

    app.redis.defineCommand('countRequest', { lua: COUNT_REQUEST });
    const counting = app.redis as unknown as CountingRedis;
    /** Requests already counted, so the error handler does not count them again. */
    const counted = new WeakSet<FastifyRequest>();
    const budget = app.apiKeyBudget;

    const report = async (request: FastifyRequest, reply: FastifyReply, event: EngagementEvent | null) => {
      counted.add(request);
      const entry = event === null ? '' : encode(event);
      const counterKey = budget.key(request);
      let count: [number, number];
      try {
        const batch = app.counterBatch;
        if (batch !== null) {
          // A single Redis: counted and buffered with the other requests of this event-loop turn.
          const { current, ttl } = await batch.increment({
            key: counterKey,
            windowMs: budget.windowMs,
            max: budget.max,
            entry,
          });
          count = [current, ttl];
        } else {
          // A Redis Cluster: the counter and the list live in other slots, so the event follows.
          count = await counting.countRequest(1, counterKey, budget.windowMs, budget.max, '');
        }
      } catch (error) {
        // As the limiters do when Redis cannot count: the request goes on; the event is lost.
        request.log.warn({ err: error }, 'engagement event not buffered');
        return;
      }
      budget.settle(reply, { current: Number(count[0]), ttl: Number(count[1]) });
      if (app.counterBatch === null && entry !== '') {
        await app.redis
          .rpush(listKey, entry)
          .catch((error: unknown) => request.log.warn({ err: error }, 'engagement event not buffered'));
      }
    };

    const countFailed = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<never> => {
      if (!counted.has(request)) {
        counted.add(request);
        await budget.count(request, reply);
      }
      throw error;
    };

    const flush = async (): Promise<FlushResult> => {
      const token = randomUUID();
      const result: FlushResult = { counted: 0, batches: 0 };
      if ((await app.redis.set(lockKey, token, 'PX', LOCK_MS, 'NX')) !== 'OK') return result;
      try {
        for (;;) {
          const entries = await app.redis.lrange(listKey, 0, settings.flushBatch - 1);
          if (entries.length === 0) break;
          // The same event reported again (an SDK retry, a page reporting twice) counts once: it is
          // dropped here, before it costs a decode and a row in the statement's input.
          const batch: EngagementEvent[] = [];
          for (const entry of new Set(entries)) {
            const event = decode(entry);
            if (event !== null) batch.push(event);
          }
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

    // One flush at a time per process: the timer, the last one on close and a direct `flush()` queue
    // behind each other. A direct call must not overlap the timer's: it would find the Redis lock
    // taken and return at once, before the timer's flush has committed what it read.
    let running: Promise<unknown> = Promise.resolve();
    const flushInTurn = (): Promise<FlushResult> => {
      const next = running.then(flush);
      running = next.catch(() => undefined);
      return next;
    };
    const flushInBackground = () =>
      flushInTurn().catch((error: unknown) => app.log.error({ err: error }, 'engagement flush failed; retrying later'));
    const timer = setInterval(flushInBackground, settings.flushIntervalMs);
    timer.unref();
    // Registered after the db and redis plugins, so this runs before they close (LIFO).
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await flushInBackground();
    });

    app.decorate('engagement', { record, flush: flushInTurn, report, countFailed });
  },
  { name: 'engagement-buffer', dependencies: ['config', 'db', 'redis', 'limiters'] },
);
