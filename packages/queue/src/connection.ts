import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/**
 * Workers block on Redis and must never give up on a command (`maxRetriesPerRequest: null`);
 * producers in a request path fail fast instead so an API call does not hang on a Redis outage.
 */
export type RedisRole = 'worker' | 'producer';

export type RedisConnection = Redis | Cluster;

export interface RedisTarget {
  readonly redisUrl: string;
  readonly redisClusterNodes: readonly { readonly host: string; readonly port: number }[] | null;
}

/**
 * How long a cluster command keeps trying through a failover before it fails: a master that dies is
 * replaced once the other masters agree it is gone. About 10 s for a worker (BullMQ tries again
 * after that anyway), about 5 s for the API, whose requests then go on as they do when Redis is down.
 */
const FAILOVER_RETRY_DELAY_MS = 200;
const MAX_REDIRECTIONS: Record<RedisRole, number> = { worker: 50, producer: 25 };

function roleOptions(role: RedisRole): RedisOptions {
  return {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
  };
}

export function createRedisConnection(target: RedisTarget, role: RedisRole): RedisConnection {
  const nodes = target.redisClusterNodes;
  if (nodes === null || nodes.length === 0) {
    return new Redis(target.redisUrl, { ...roleOptions(role), lazyConnect: false });
  }
  const options: ClusterOptions = {
    // Per-node connections. The cluster client has an offline queue of its own (below); a node's
    // own must stay on, or a command routed to a node that is reconnecting fails at once.
    redisOptions: { maxRetriesPerRequest: role === 'worker' ? null : 1, connectTimeout: 2_000 },
    enableOfflineQueue: role === 'worker',
    enableReadyCheck: true,
    lazyConnect: false,
    retryDelayOnFailover: FAILOVER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: FAILOVER_RETRY_DELAY_MS,
    retryDelayOnTryAgain: FAILOVER_RETRY_DELAY_MS,
    maxRedirections: MAX_REDIRECTIONS[role],
    slotsRefreshInterval: 2_000,
    slotsRefreshTimeout: 2_000,
    // Never give up reconnecting to the cluster as a whole (null would end the client for good).
    clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
  };
  return new Cluster(
    nodes.map(({ host, port }) => ({ host, port })),
    options,
  );
}

/**
 * Closes a connection politely (QUIT) when it is up, but never waits longer than `timeoutMs`: a
 * QUIT to a cluster node that died, or to a Redis that is down, may never be answered.
 */
export async function closeRedisConnection(connection: RedisConnection, timeoutMs = 2_000): Promise<void> {
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([
    connection.quit().then(
      () => undefined,
      () => undefined,
    ),
    timeout,
  ]);
  clearTimeout(timer);
  connection.disconnect();
}

export const isCluster = (connection: RedisConnection): connection is Cluster => connection instanceof Cluster;

/**
 * The master connections of a cluster, or the one connection of a single Redis: for the few
 * commands that act on one node's keyspace (SCAN, FLUSHDB, INFO).
 */
export function masterConnections(connection: RedisConnection): Redis[] {
  return isCluster(connection) ? connection.nodes('master') : [connection];
}

/**
 * BullMQ key prefix: a hash tag, so every key of a queue lands in one Redis Cluster slot (BullMQ's
 * scripts touch several keys of a queue at once). All the service's queues share that one tag.
 */
export const bullPrefix = (keyPrefix: string): string => `{${keyPrefix}}`;
