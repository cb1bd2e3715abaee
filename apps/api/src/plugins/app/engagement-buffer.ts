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
      /** Buffers one event (Redis: one RPUSH); counted by the next flush. */
      record(event: EngagementEvent): Promise<void>;
      /**
       * POST /events: counts the request against the API-key limit and buffers its event (null:
       * nothing to count) in one step (Redis: one script); throws RATE_LIMITED over the limit, buffering nothing.
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

const LOCK_MS = 60_000;
/**
 * Engagement events are cheap under a burst: a request costs one indexed read and one RPUSH, and a
 * flush (one API instance at a time, under the coordination's lock) turns up to EVENTS_FLUSH_BATCH events into
 * ONE statement: a multi-row insert-or-ignore into `notification_events` (the durable "counted
 * once" record) plus one UPDATE per notification. 100,000 clicks in a minute become about 60
 * statements and, per notification, one row update per flush instead of 100,000.
 *
 * A flush reads a batch (LRANGE), commits it, then trims it (LTRIM); a process dying in between
 * leaves the batch in Redis and the next flush repeats it, which counts nothing twice. Closing the
 * API flushes once more. What can be lost (docs/engagement.md): events in the Redis list when
 * Redis itself loses its data, and events whose RPUSH failed while Redis was unreachable (the API
 * still answers 202 and logs it); with in-process coordination, the events of a process that dies
 * without closing.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { events: settings } = app.config;
    const buffer = app.coordination.engagement;

    const record = async (event: EngagementEvent) => {
      await buffer.push(encode(event));
    };

    /** Requests already counted, so the error handler does not count them again. */
    const counted = new WeakSet<FastifyRequest>();
    const budget = app.apiKeyBudget;

    const report = async (request: FastifyRequest, reply: FastifyReply, event: EngagementEvent | null) => {
      counted.add(request);
      const entry = event === null ? '' : encode(event);
      let count: { current: number; ttl: number };
      try {
        // A single Redis or this process: counted and buffered together (with the other requests of
        // this event-loop turn on Redis); a Redis Cluster: counted, then the event follows.
        count = await app.coordination.countRequest(budget.key(request), budget.windowMs, budget.max, entry);
      } catch (error) {
        // As the limiters do when Redis cannot count: the request goes on; the event is lost.
        request.log.warn({ err: error }, 'engagement event not buffered');
        return;
      }
      budget.settle(reply, count);
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
      if (!(await buffer.lock(token, LOCK_MS))) return result;
      try {
        for (;;) {
          const entries = await buffer.read(settings.flushBatch);
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
          const trimmed = await buffer.trim(token, entries.length);
          if (!trimmed || entries.length < settings.flushBatch) break;
        }
      } finally {
        await buffer.unlock(token);
      }
      return result;
    };

    // One flush at a time per process: the timer, the last one on close and a direct `flush()` queue
    // behind each other. A direct call must not overlap the timer's: it would find the lock
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
    // Registered after the db and coordination plugins, so this runs before they close (LIFO).
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await flushInBackground();
    });

    app.decorate('engagement', { record, flush: flushInTurn, report, countFailed });
  },
  { name: 'engagement-buffer', dependencies: ['config', 'db', 'coordination', 'limiters'] },
);
