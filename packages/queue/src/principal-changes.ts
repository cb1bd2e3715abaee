import { randomUUID } from 'node:crypto';
import { isCluster, type RedisConnection } from './connection.js';

/** Whose API-key principals changed: one app's keys, or every key of one account's apps. */
export type PrincipalChange = { appId: string } | { userId: string };

/**
 * The channel on which every API instance hears that cached API-key principals changed (the API's
 * api-key-principals plugin). On one Redis, classic pub/sub. On a Redis Cluster, sharded pub/sub
 * (`SPUBLISH`, `SSUBSCRIBE`): the channel lives on the master of its slot, and every instance
 * listens there, so one node writes a message to every listener in the same pass (classic pub/sub
 * would reach listeners on other nodes through the cluster bus, milliseconds later).
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

/** Tells every API instance that `change` happened (e.g. `pnpm admin set-plan`). */
export async function publishPrincipalChange(
  redis: RedisConnection,
  redisKeyPrefix: string,
  change: PrincipalChange,
): Promise<void> {
  await publishOnPrincipalChannel(redis, principalChangesChannel(redisKeyPrefix), encodePrincipalChange(change));
}
