import { createPostgresBackend, Queue, type QueueOptions, Worker, type WorkerOptions, withBackend } from 'bullmq';
import { bullPrefix, type RedisConnection } from './connection.js';

/**
 * Where the queues live (QUEUE_BACKEND). On Redis, every queue and worker of a process shares one
 * connection under the `bullPrefix` hash tag; on PostgreSQL, BullMQ's PostgreSQL backend keeps them
 * in the `schema` of the service's own database, each queue and worker with a small pool of its own.
 */
export type QueueTransport =
  | { readonly backend: 'redis'; readonly connection: RedisConnection; readonly prefix: string }
  | { readonly backend: 'postgres'; readonly databaseUrl: string; readonly schema: string };

/** The schema of BullMQ's tables: one per REDIS_KEY_PREFIX, as the Redis keys are, so tests can share a database. */
export const bullSchema = (keyPrefix: string): string => `bullmq_${keyPrefix.replace(/[^A-Za-z0-9_]/g, '_')}`;

/**
 * A queue or worker holds one connection at rest (the worker a second one that waits for jobs); a
 * few more for bursts. Three queues and three workers per process stay well within PostgreSQL's
 * default of 100 connections next to the service's own pools.
 */
const POOL_SIZE = 4;

const postgres = withBackend(createPostgresBackend);

/** BullMQ's options minus the connection, which comes from the transport. */
type WithoutConnection<T> = Omit<T, 'connection' | 'prefix'>;

function postgresConnection(transport: Extract<QueueTransport, { backend: 'postgres' }>) {
  // `migrate`: the backend's own migrations run at start, under its advisory lock, so the API and
  // the worker starting together migrate once.
  return { connectionString: transport.databaseUrl, schema: transport.schema, max: POOL_SIZE, migrate: true };
}

export function newQueue<T>(
  name: string,
  transport: QueueTransport,
  options: WithoutConnection<QueueOptions>,
): Queue<T> {
  if (transport.backend === 'redis') {
    return new Queue<T>(name, { ...options, connection: transport.connection, prefix: transport.prefix });
  }
  // One Queue class, two connection types: the PostgreSQL one behaves as the Redis one to its callers.
  return new postgres.Queue<T>(name, { ...options, connection: postgresConnection(transport) }) as unknown as Queue<T>;
}

export function newWorker<T>(
  name: string,
  processor: ConstructorParameters<typeof Worker<T>>[1],
  transport: QueueTransport,
  options: WithoutConnection<WorkerOptions>,
): Worker<T> {
  if (transport.backend === 'redis') {
    return new Worker<T>(name, processor, { ...options, connection: transport.connection, prefix: transport.prefix });
  }
  return new postgres.Worker<T>(name, processor as never, {
    ...options,
    connection: postgresConnection(transport),
  }) as unknown as Worker<T>;
}

export interface QueueSettings {
  readonly queueBackend: 'redis' | 'postgres';
  readonly databaseUrl: string;
  readonly redisKeyPrefix: string;
}

/** The transport QUEUE_BACKEND names; `redis` is asked for only when the queues live there. */
export function queueTransport(settings: QueueSettings, redis: () => RedisConnection): QueueTransport {
  if (settings.queueBackend === 'postgres') {
    return { backend: 'postgres', databaseUrl: settings.databaseUrl, schema: bullSchema(settings.redisKeyPrefix) };
  }
  return { backend: 'redis', connection: redis(), prefix: bullPrefix(settings.redisKeyPrefix) };
}
