import { Redis } from 'ioredis';

/**
 * Workers block on Redis and must never give up on a command (`maxRetriesPerRequest: null`);
 * producers in a request path fail fast instead so an API call does not hang on a Redis outage.
 */
export type RedisRole = 'worker' | 'producer';

export function createRedisConnection(url: string, role: RedisRole): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    lazyConnect: false,
  });
}

/** BullMQ key prefix: a hash tag, so every key of a queue lands in one Redis Cluster slot. */
export const bullPrefix = (keyPrefix: string): string => `{${keyPrefix}}`;
