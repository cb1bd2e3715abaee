import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';

/** Whose API-key principals changed: one app's keys, or every key of one account's apps. */
export type PrincipalChange = { appId: string } | { userId: string };

/**
 * The channel on which every API instance hears that cached API-key principals changed (the API's
 * api-key-principals plugin). Classic pub/sub: on a Redis Cluster a message reaches every node.
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

/** Tells every API instance that `change` happened (e.g. `pnpm admin set-plan`). */
export async function publishPrincipalChange(
  redis: RedisConnection,
  redisKeyPrefix: string,
  change: PrincipalChange,
): Promise<void> {
  await redis.publish(principalChangesChannel(redisKeyPrefix), encodePrincipalChange(change));
}
