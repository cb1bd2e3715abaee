import { createHash, randomUUID } from 'node:crypto';
import { isCluster, type RedisConnection } from './connection.js';

export type PrincipalChange = { appId: string } | { userId: string };

/**
 * Where every API instance hears that cached API-key principals changed. On a Redis Cluster,
 * sharded pub/sub: the channel lives on its slot's master, which writes to every listener in one
 * pass (classic pub/sub would reach other nodes' listeners through the cluster bus, later).
 */
export const principalChangesChannel = (redisKeyPrefix: string) => `${redisKeyPrefix}:api-key-principals:changed`;

/** `app|<id>|<nonce>` or `user|<id>|<nonce>`: ids and a nonce, never a key or its hash. */
export const encodePrincipalChange = (change: PrincipalChange, nonce: string = randomUUID()) =>
  'appId' in change ? `app|${change.appId}|${nonce}` : `user|${change.userId}|${nonce}`;

/** The change a message names (null: unreadable, so drop everything), and its nonce. */
export function decodePrincipalChange(message: string): { change: PrincipalChange | null; nonce: string | undefined } {
  const [kind, id, nonce] = message.split('|', 3);
  if (kind === 'app' && id) return { change: { appId: id }, nonce };
  if (kind === 'user' && id) return { change: { userId: id }, nonce };
  return { change: null, nonce };
}

export async function publishOnPrincipalChannel(
  redis: RedisConnection,
  channel: string,
  message: string,
): Promise<void> {
  if (isCluster(redis)) await redis.spublish(channel, message);
  else await redis.publish(channel, message);
}

export async function publishPrincipalChange(
  redis: RedisConnection,
  redisKeyPrefix: string,
  change: PrincipalChange,
): Promise<void> {
  await publishOnPrincipalChannel(redis, principalChangesChannel(redisKeyPrefix), encodePrincipalChange(change));
}

/**
 * The PostgreSQL channel (LISTEN/NOTIFY) of principal changes, for an API whose coordination lives in
 * its own process (COORDINATION=process): the Redis channel's name, shortened to a hash when it would
 * not fit PostgreSQL's 63-byte identifiers.
 */
export function principalNotifyChannel(redisKeyPrefix: string): string {
  const name = principalChangesChannel(redisKeyPrefix);
  if (Buffer.byteLength(name) <= 63) return name;
  return `api-key-principals:${createHash('sha256').update(name).digest('hex').slice(0, 40)}`;
}

/** What NOTIFY needs of a PostgreSQL client: postgres.js's `sql.notify`. */
export interface Notifier {
  notify(channel: string, payload: string): PromiseLike<unknown>;
}

/** Tells an API with in-process coordination (`pnpm admin` in the embedded mode) through PostgreSQL. */
export async function notifyPrincipalChange(sql: Notifier, redisKeyPrefix: string, change: PrincipalChange) {
  await sql.notify(principalNotifyChannel(redisKeyPrefix), encodePrincipalChange(change));
}
