import { type DeliverableSubscription, type DeliveryContext, findVapidKeyVersions } from '@webpush/db';
import type { VapidCredentials } from '@webpush/push';
import type { WorkerContext } from '../context.js';
import { type VapidKeyOfApp, VapidKeyUnavailableError } from './vapid-keyring.js';

/** Signing credentials per key version; null: that key cannot be used (not found, or does not open). */
export type SigningKeys = Map<number, VapidCredentials | null>;

/**
 * The credentials for every key version the chunk's subscriptions were made with. The current key
 * came with the chunk; earlier ones are opened from the keyring's cache, or read once per version
 * (a chunk usually needs none: only subscriptions older than a rotation do).
 */
export async function signingKeys(
  context: Pick<WorkerContext, 'db' | 'keyring' | 'log'>,
  delivery: DeliveryContext,
  subscriptions: readonly DeliverableSubscription[],
): Promise<SigningKeys> {
  const { app, notification } = delivery;
  const keys: SigningKeys = new Map();
  const open = (key: VapidKeyOfApp) => {
    try {
      keys.set(key.version, context.keyring.credentialsFor(key));
    } catch (error) {
      if (!(error instanceof VapidKeyUnavailableError)) throw error;
      keys.set(key.version, null);
      context.log.error(
        { err: error, notificationId: notification.id, version: key.version },
        'cannot sign pushes: they count as failed',
      );
    }
  };
  const missing: number[] = [];
  for (const { vapidKeyVersion: version } of subscriptions) {
    if (keys.has(version)) continue;
    if (version === app.vapidKeyVersion) {
      open({
        appId: app.id,
        version,
        publicKey: app.vapidPublicKey,
        privateKeySealed: app.vapidPrivateKeySealed,
      });
      continue;
    }
    const cached = context.keyring.cached(app.id, version);
    keys.set(version, cached ?? null);
    if (!cached) missing.push(version);
  }
  if (missing.length > 0) {
    for (const key of await findVapidKeyVersions(context.db, app.id, missing)) open({ appId: app.id, ...key });
    for (const version of missing) {
      if (keys.get(version) === null)
        context.log.error(
          { notificationId: notification.id, version },
          'a subscription names a VAPID key that is gone',
        );
    }
  }
  return keys;
}
