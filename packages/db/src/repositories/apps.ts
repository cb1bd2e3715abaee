import { and, asc, count, eq, getTableColumns, gt, isNotNull, isNull, like, or, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import {
  appMembers,
  apps,
  type FrequencyCap,
  notifications,
  type PushFormat,
  subscriptions,
  users,
} from '../schema.js';
import { type AuditContext, recordAudit } from './audit-log.js';
import type { AppRole } from './members.js';
import { appSendsThisMonth } from './notifications/index.js';
import { releaseSlots } from './subscriber-counters.js';

export type App = typeof apps.$inferSelect;

export interface NewApp {
  /** Chosen by the caller when the sealed private key must be bound to it (AES-GCM additional data). */
  id?: string;
  name: string;
  vapidPublicKey: string;
  vapidPrivateKeySealed: string;
}

export interface AppStats {
  activeSubscribers: number;
  expiredSubscribers: number;
  sendsThisMonth: number;
}

/**
 * Creates the app unless the owner is at `maxApps`. The owner's row is locked for the count and the
 * insert, so two simultaneous creations cannot both take the last slot.
 */
export async function createAppWithinLimit(
  db: Database,
  userId: string,
  input: NewApp,
  maxApps: number | null,
): Promise<App | 'limit'> {
  return db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    if (maxApps !== null) {
      const [row] = await tx.select({ n: count() }).from(apps).where(eq(apps.userId, userId));
      if ((row?.n ?? 0) >= maxApps) return 'limit';
    }
    const [app] = await tx
      .insert(apps)
      .values({ userId, ...input })
      .returning();
    if (!app) throw new Error('inserting the app returned no row');
    return app;
  });
}

export async function listApps(db: Database, userId: string): Promise<App[]> {
  return db.select().from(apps).where(eq(apps.userId, userId)).orderBy(asc(apps.createdAt), asc(apps.id));
}

export type AppWithCounts = App & { activeSubscribers: number; sendsThisMonth: number; role: AppRole };

// drizzle writes the columns of the only table in FROM without its name: inside a subquery on
// subscriptions or notifications, the outer app is named in full.
const outerAppId = sql.raw('"apps"."id"');

/**
 * The apps `userId` owns or is a member of, each with the user's role, its active subscribers and
 * this month's sends, in one statement: per app, an index-only count over
 * subscriptions_app_active_idx and a range of notifications_app_created_idx. As in
 * findAppAccess, a member does not see the apps of a suspended owner.
 */
export async function listAppsWithCounts(db: Database, userId: string): Promise<AppWithCounts[]> {
  return db
    .select({
      ...getTableColumns(apps),
      role: sql<AppRole>`case when ${apps.userId} = ${userId} then 'owner' else ${appMembers.role} end`,
      activeSubscribers: sql<number>`(select count(*) from ${subscriptions}
        where ${subscriptions.appId} = ${outerAppId} and ${subscriptions.status} = 'active')`.mapWith(Number),
      sendsThisMonth: sql<number>`(select coalesce(sum(${notifications.targets}), 0) from ${notifications}
        where ${notifications.appId} = ${outerAppId}
          and ${notifications.createdAt} >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC')`.mapWith(
        Number,
      ),
    })
    .from(apps)
    .innerJoin(users, eq(users.id, apps.userId))
    .leftJoin(appMembers, and(eq(appMembers.appId, apps.id), eq(appMembers.userId, userId)))
    .where(or(eq(apps.userId, userId), and(isNotNull(appMembers.userId), isNull(users.suspendedAt))))
    .orderBy(asc(apps.createdAt), asc(apps.id));
}

export async function findApp(db: Database, userId: string, appId: string): Promise<App | null> {
  if (!isUuid(userId, appId)) return null;
  const [app] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.userId, userId), eq(apps.id, appId)))
    .limit(1);
  return app ?? null;
}

export interface AppChanges {
  name?: string;
  allowedOrigins?: string[];
  pushFormat?: PushFormat;
  defaultUrl?: string | null;
  requireSignedTags?: boolean;
  signaturesExpire?: boolean;
  timeZone?: string;
  frequencyCap?: FrequencyCap | null;
}

/**
 * Changes an app of `userId`: null when it is not theirs, `'needs_default_url'` (nothing changed)
 * when the app would be `declarative` without a `defaultUrl`. One statement, so the rule holds
 * against a concurrent change of the other field. A change is recorded as `app.updated` (the
 * fields it set, not their values) in the same transaction.
 */
export async function updateApp(
  db: Database,
  userId: string,
  appId: string,
  changes: AppChanges,
  audit: AuditContext | null,
): Promise<App | 'needs_default_url' | null> {
  const fields = Object.keys(changes).filter((field) => changes[field as keyof AppChanges] !== undefined);
  if (fields.length === 0) return findApp(db, userId, appId);
  const format = changes.pushFormat === undefined ? apps.pushFormat : sql`${changes.pushFormat}::text`;
  const defaultUrl = changes.defaultUrl === undefined ? apps.defaultUrl : sql`${changes.defaultUrl}::text`;
  const app = await db.transaction(async (tx) => {
    const [updated] = await tx
      .update(apps)
      .set(changes)
      .where(
        and(
          eq(apps.userId, userId),
          eq(apps.id, appId),
          sql`(${format} <> 'declarative' or ${defaultUrl} is not null)`,
        ),
      )
      .returning();
    if (updated && audit) {
      await recordAudit(
        tx,
        { appId },
        { ...audit, action: 'app.updated', target: { type: 'app', id: appId }, details: { fields } },
      );
    }
    return updated;
  });
  if (app) return app;
  return (await findApp(db, userId, appId)) ? 'needs_default_url' : null;
}

/**
 * Deletes the app, its subscriptions and, through foreign keys, its keys, in one transaction that
 * gives the app's active subscriptions back to the owner's subscriber counter. The app row is locked
 * first, so no subscription can be inserted into it meanwhile (the subscribe statement locks it too),
 * and each subscription's status is read as it is when deleted, so a race is counted once.
 */
export async function deleteApp(db: Database, userId: string, appId: string): Promise<boolean> {
  if (!isUuid(userId, appId)) return false;
  return (await db.$client.begin(async (sql) => {
    const [owned] = await sql`select id from apps where id = ${appId} and user_id = ${userId} for update`;
    if (!owned) return false;
    await sql`with deleted as (delete from subscriptions where app_id = ${appId} returning status)
      ${releaseSlots(sql as unknown as Database['$client'], appId, sql`select count(*) from deleted where status = 'active'`)}`;
    await sql`delete from apps where id = ${appId}`;
    return true;
  })) as boolean;
}

export async function appStats(db: Database, appId: string): Promise<AppStats> {
  const [row] = await db
    .select({
      active: sql<number>`count(*) filter (where ${subscriptions.status} = 'active')`.mapWith(Number),
      expired: sql<number>`count(*) filter (where ${subscriptions.status} = 'expired')`.mapWith(Number),
    })
    .from(subscriptions)
    .where(eq(subscriptions.appId, appId));
  return {
    activeSubscribers: row?.active ?? 0,
    expiredSubscribers: row?.expired ?? 0,
    sendsThisMonth: await appSendsThisMonth(db, appId),
  };
}

/**
 * One page of apps whose sealed VAPID key starts with `prefix` (an old format to re-seal), in id
 * order after `afterId`: keyset pages, so rows that cannot be re-sealed are not read again.
 */
export async function appsWithSealedKeyPrefix(
  db: Database,
  prefix: string,
  afterId: string | null,
  limit: number,
): Promise<Pick<App, 'id' | 'vapidPrivateKeySealed'>[]> {
  const format = like(apps.vapidPrivateKeySealed, `${prefix}%`);
  return db
    .select({ id: apps.id, vapidPrivateKeySealed: apps.vapidPrivateKeySealed })
    .from(apps)
    .where(afterId === null ? format : and(format, gt(apps.id, afterId)))
    .orderBy(asc(apps.id))
    .limit(limit);
}

/** Swaps an app's sealed VAPID key, only if it is still `previous` (so concurrent re-sealers agree). */
export async function replaceSealedVapidKey(
  db: Database,
  appId: string,
  previous: string,
  next: string,
): Promise<boolean> {
  const updated = await db
    .update(apps)
    .set({ vapidPrivateKeySealed: next })
    .where(and(eq(apps.id, appId), eq(apps.vapidPrivateKeySealed, previous)))
    .returning({ id: apps.id });
  return updated.length > 0;
}
