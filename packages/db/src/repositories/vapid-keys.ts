import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { apps, retiredVapidKeys } from '../schema.js';
import type { App } from './apps.js';
import { type AuditContext, recordAudit } from './audit-log.js';

export interface VapidKeyVersion {
  version: number;
  publicKey: string;
  privateKeySealed: string;
}

/**
 * Rotates the VAPID key of `userId`'s app: the current key moves to `retired_vapid_keys` (kept for
 * the subscriptions made with it) and `next` becomes current under the next version number, in one
 * transaction with the app row locked, so two rotations at once number their keys apart. Null when
 * the app is not theirs.
 */
export async function rotateVapidKey(
  db: Database,
  userId: string,
  appId: string,
  next: { vapidPublicKey: string; vapidPrivateKeySealed: string },
  audit: AuditContext | null,
): Promise<App | null> {
  if (!isUuid(userId, appId)) return null;
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(apps)
      .where(and(eq(apps.id, appId), eq(apps.userId, userId)))
      .for('update');
    if (!current) return null;
    await tx.insert(retiredVapidKeys).values({
      appId,
      version: current.vapidKeyVersion,
      publicKey: current.vapidPublicKey,
      privateKeySealed: current.vapidPrivateKeySealed,
    });
    const [rotated] = await tx
      .update(apps)
      .set({ ...next, vapidKeyVersion: current.vapidKeyVersion + 1 })
      .where(eq(apps.id, appId))
      .returning();
    if (rotated && audit) {
      await recordAudit(
        tx,
        { appId },
        {
          ...audit,
          action: 'vapid_key.rotated',
          target: { type: 'app', id: appId },
          details: { version: rotated.vapidKeyVersion, publicKey: rotated.vapidPublicKey },
        },
      );
    }
    return rotated ?? null;
  });
}

export async function findVapidKeyVersion(db: Database, appId: string, publicKey: string): Promise<number | null> {
  const [row] = await db.$client<{ version: number }[]>`
    select vapid_key_version as version from apps where id = ${appId} and vapid_public_key = ${publicKey}
    union all
    select version from retired_vapid_keys where app_id = ${appId} and public_key = ${publicKey}
    limit 1`;
  return row?.version ?? null;
}

/**
 * The app's keys of these versions, current or retired, for signing: what a delivery chunk reads
 * for the versions its subscriptions were made with, beyond the current key it already has.
 */
export async function findVapidKeyVersions(
  db: Database,
  appId: string,
  versions: readonly number[],
): Promise<VapidKeyVersion[]> {
  if (versions.length === 0) return [];
  return db.$client<VapidKeyVersion[]>`
    select vapid_key_version as version, vapid_public_key as "publicKey", vapid_private_key_sealed as "privateKeySealed"
    from apps where id = ${appId} and vapid_key_version = any(${versions as number[]}::int[])
    union all
    select version, public_key, private_key_sealed from retired_vapid_keys
    where app_id = ${appId} and version = any(${versions as number[]}::int[])`;
}

/**
 * Deletes retired keys that no active subscription uses any more, retired at least `minAgeMs` ago
 * (so a subscribe that just named the key is not raced). Returns how many keys were deleted.
 */
export async function deleteUnusedRetiredVapidKeys(db: Database, minAgeMs: number): Promise<number> {
  const deleted = await db
    .delete(retiredVapidKeys)
    .where(
      // The outer table spelt out: drizzle would write its columns unqualified, naming the subquery's.
      sql`retired_vapid_keys.retired_at < now() - make_interval(secs => ${minAgeMs / 1000})
        and not exists (select 1 from subscriptions s where s.app_id = retired_vapid_keys.app_id
          and s.status = 'active' and s.vapid_key_version = retired_vapid_keys.version)`,
    )
    .returning({ appId: retiredVapidKeys.appId });
  return deleted.length;
}
