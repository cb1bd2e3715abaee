import {
  closeRedisConnection,
  isCluster,
  principalChangesChannel,
  publishOnPrincipalChannel,
  type RedisConnection,
} from '@webpush/queue';
import type { FastifyBaseLogger } from 'fastify';
import type { Coordination, CounterReading, EngagementBuffer, PrincipalChannel } from './coordination.js';
import { createCounterBatch } from './redis-counter-batch.js';

/** The Redis list that buffers engagement events until a flush counts them. */
export const engagementBufferKey = (redisKeyPrefix: string) => `${redisKeyPrefix}:engagement:buffer`;

/**
 * Counts one in the window's key and gives the key its lifetime when the count starts: one command
 * instead of MULTI/INCR/PEXPIRE/EXEC, which cost the subscribe path four commands' worth of ioredis
 * work. Sent as EVAL: Redis keeps the compiled script by its hash, so a call costs hashing ~100 bytes.
 */
const COUNT_IN_WINDOW = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

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

/** Deletes the lock only if it is still ours. */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
/**
 * Trims the counted batch only while we still hold the lock: a flusher whose lock expired (a flush
 * slower than its lock) must not trim what another flusher has read meanwhile. Untrimmed, the batch
 * is simply counted again by the next flush, which changes nothing.
 */
const TRIM_IF_OWNER =
  "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('ltrim', KEYS[2], ARGV[2], -1) return 1 end return 0";

function engagementBuffer(redis: RedisConnection, listKey: string): EngagementBuffer {
  // The trim script takes the lock and the list together, so on a Redis Cluster both must hash to
  // one slot: a key without `{}` hashes as a whole, and `{<list key>}…` hashes as the list key.
  const lockKey = `{${listKey}}:flush-lock`;
  return {
    push: async (entry) => {
      await redis.rpush(listKey, entry);
    },
    lock: async (token, ms) => (await redis.set(lockKey, token, 'PX', ms, 'NX')) === 'OK',
    read: (count) => redis.lrange(listKey, 0, count - 1),
    trim: async (token, count) => (await redis.eval(TRIM_IF_OWNER, 2, lockKey, listKey, token, count)) === 1,
    unlock: async (token) => {
      await redis.eval(RELEASE, 1, lockKey, token);
    },
    length: () => redis.llen(listKey),
  };
}

/**
 * Principal changes on a Redis channel every instance listens to, on one node (on a Redis Cluster,
 * sharded pub/sub on the master of the channel's slot). The listening connection is a copy of the
 * API's own on one Redis, named `<REDIS_KEY_PREFIX>:api-key-listener` in `CLIENT LIST`; on a
 * cluster, a cluster client that keeps a sharded-pub/sub connection to the master of each slot it
 * listens on.
 */
function principalChannel(redis: RedisConnection, keyPrefix: string, log: FastifyBaseLogger): PrincipalChannel {
  const channel = principalChangesChannel(keyPrefix);
  return {
    publish: (message) => publishOnPrincipalChannel(redis, channel, message),
    async listen({ onMessage, onLost }) {
      const subscriber = isCluster(redis)
        ? redis.duplicate([], { shardedSubscribers: true })
        : redis.duplicate({ connectionName: `${keyPrefix}:api-key-listener` });
      subscriber.on('error', (error: Error) => log.warn({ err: error }, 'api-key cache listener: redis error'));
      const cluster = isCluster(subscriber);
      subscriber.on(cluster ? 'smessage' : 'message', (_channel: string, message: string) => onMessage(message));
      // Neither client tells when a subscription is back after a reconnect: a single Redis's ioredis
      // says `ready` before it sends SUBSCRIBE again (a change published in between is missed); a
      // cluster's says only that a connection ended ('-node'), was replaced ('-subscriber') or failed
      // ('nodeError': also what a master's own unsubscribe looks like when it hands the slot to a
      // replica). So each of these is a loss, until a message of the caller's own comes back.
      const lost = cluster
        ? ['-node', '-subscriber', 'nodeError', 'close', 'reconnecting', 'end']
        : ['close', 'reconnecting', 'end', 'ready'];
      const close = () => closeRedisConnection(subscriber);
      try {
        // Its commands are not queued while it connects (as for the API's own): wait for it.
        if (subscriber.status !== 'ready') {
          await new Promise<void>((resolve, reject) => {
            subscriber.once('ready', resolve);
            setTimeout(() => reject(new Error('redis did not answer within 5 s')), 5_000).unref();
          });
        }
        // Losses count from here: what happened while it first connected missed nothing.
        for (const event of lost) subscriber.on(event, onLost);
        if (isCluster(subscriber)) await subscriber.ssubscribe(channel);
        else await subscriber.subscribe(channel);
      } catch (error) {
        await close();
        throw error;
      }
      return { close };
    },
  };
}

/** The coordination of every API instance in one Redis (or Redis Cluster): `connection` is the API's own. */
export function redisCoordination(redis: RedisConnection, keyPrefix: string, log: FastifyBaseLogger): Coordination {
  const listKey = engagementBufferKey(keyPrefix);
  // On a Redis Cluster the counters of different clients live in different slots: no batch there.
  const counterBatch = isCluster(redis) ? null : createCounterBatch(redis, listKey);
  redis.defineCommand('countRequest', { lua: COUNT_REQUEST });
  const counting = redis as unknown as CountingRedis;

  return {
    kind: 'redis',
    counterBatch,
    rateLimitRedis: redis,
    async countRequest(key, windowMs, max, entry) {
      if (counterBatch !== null) return counterBatch.increment({ key, windowMs, max, entry });
      // A Redis Cluster: the counter and the list live in other slots, so the event follows.
      const [current, ttl] = await counting.countRequest(1, key, windowMs, max, '');
      const count = { current: Number(current), ttl: Number(ttl) };
      if (entry !== '' && count.current <= max) {
        await redis
          .rpush(listKey, entry)
          .catch((error: unknown) => log.warn({ err: error }, 'engagement event not buffered'));
      }
      return count;
    },
    increment: async (key, windowMs) => Number(await redis.eval(COUNT_IN_WINDOW, 1, key, windowMs)),
    async read(key): Promise<CounterReading> {
      const replies = await redis.multi().get(key).pttl(key).exec();
      return { count: Number(replies?.[0]?.[1] ?? 0) || 0, ttlMs: Number(replies?.[1]?.[1] ?? -2) };
    },
    setOnce: async (key, ttlMs) => (await redis.set(key, '1', 'PX', ttlMs, 'NX')) === 'OK',
    engagement: engagementBuffer(redis, listKey),
    principals: principalChannel(redis, keyPrefix, log),
    ping: async () => {
      await redis.ping();
    },
    close: () => closeRedisConnection(redis),
  };
}
