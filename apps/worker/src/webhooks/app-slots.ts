import { type Database, giveWebhookSlot, takeWebhookSlot } from '@webpush/db';
import type { RedisConnection } from '@webpush/queue';

/**
 * The webhook slots of each app, shared by every worker process: an app has at most `limit`
 * attempts in flight in all of them together. Each slot is held under a lease a little longer than
 * an attempt can take, so a slot whose worker died (and never gave it back) frees itself.
 */
export interface AppSlots {
  /** Takes one of the app's `limit` slots for `token`: null when taken, or else the age (ms) of the oldest attempt holding one. */
  take(appId: string, token: string, limit: number): Promise<number | null>;
  /** Gives back the slot `token` took; nothing when its lease has already ended. */
  give(appId: string, token: string): Promise<void>;
}

/**
 * One sorted set per app: its slots' tokens scored by when their lease ends, by Redis's clock (the
 * workers' clocks may differ). One key per script, so it needs no hash tag on a Redis Cluster; the
 * key expires with its newest lease, so an app that stops sending webhooks leaves nothing behind.
 */
const TAKE_SLOT = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(0, now - (tonumber(oldest[2]) - lease))
end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease)
return -1`;

export const webhookSlotsKey = (keyPrefix: string, appId: string) => `${keyPrefix}:webhook-slots:${appId}`;

/** The queues are in Redis: the slots are kept there too, beside them. */
export function redisAppSlots(redis: RedisConnection, keyPrefix: string, leaseMs: number): AppSlots {
  return {
    async take(appId, token, limit) {
      const age = Number(await redis.eval(TAKE_SLOT, 1, webhookSlotsKey(keyPrefix, appId), token, limit, leaseMs));
      return age < 0 ? null : age;
    },
    async give(appId, token) {
      await redis.zrem(webhookSlotsKey(keyPrefix, appId), token);
    },
  };
}

/**
 * The queues are in PostgreSQL (QUEUE_BACKEND=postgres): the worker has no Redis then, and a count
 * in each process's memory would do only for the embedded mode's single worker, while a deployment
 * may run several workers on PostgreSQL queues (docs/deployment.md). So the slots are rows of the
 * service's database (migration 0043), one short statement per attempt and one per release.
 */
export function postgresAppSlots(db: Database, leaseMs: number): AppSlots {
  return {
    take: (appId, token, limit) => takeWebhookSlot(db, appId, token, limit, leaseMs),
    give: (appId, token) => giveWebhookSlot(db, appId, token),
  };
}
