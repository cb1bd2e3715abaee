import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { apps, type SubscriptionStatus, subscriptions, users } from '../schema.js';
import { beforePosition, cursorTimestamp, type KeysetPosition, type Page, toPage } from './pagination.js';

export interface SubscriptionKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type UpsertResult = { id: string; created: boolean } | 'limit' | 'rate_limited';

export interface UpsertOptions {
  /**
   * Asked once, only when the endpoint is new to the app, before it is inserted: false refuses the
   * subscription (`rate_limited`). The per-app cap on new subscriptions lives here.
   */
  admitNew?: () => Promise<boolean>;
}

/**
 * Stores a browser subscription for `appId` (owned by `ownerId`): new → created; already stored →
 * keys updated and, if it had expired, active again. A new or re-activated subscription must fit
 * under `maxActive` active subscribers across the owner's apps. The owner's row is locked for the
 * count and the write, so concurrent subscribes cannot overshoot the plan by even one.
 */
export async function upsertSubscription(
  db: Database,
  ownerId: string,
  appId: string,
  keys: SubscriptionKeys,
  maxActive: number | null,
  options: UpsertOptions = {},
): Promise<UpsertResult> {
  return db.transaction(async (tx) => {
    if (maxActive !== null) {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, ownerId)).for('update');
    }
    const [existing] = await tx
      .select({ id: subscriptions.id, status: subscriptions.status })
      .from(subscriptions)
      .where(and(eq(subscriptions.appId, appId), eq(subscriptions.endpoint, keys.endpoint)))
      .limit(1);

    if (!existing && options.admitNew && !(await options.admitNew())) return 'rate_limited';

    if (existing?.status !== 'active' && maxActive !== null) {
      const [row] = await tx
        .select({ n: count() })
        .from(subscriptions)
        .innerJoin(apps, eq(apps.id, subscriptions.appId))
        .where(and(eq(apps.userId, ownerId), eq(subscriptions.status, 'active')));
      if ((row?.n ?? 0) >= maxActive) return 'limit';
    }

    if (existing) {
      await tx
        .update(subscriptions)
        .set({ p256dh: keys.p256dh, auth: keys.auth, status: 'active', expiredAt: null, updatedAt: sql`now()` })
        .where(eq(subscriptions.id, existing.id));
      return { id: existing.id, created: false };
    }
    // Without a plan limit there is no lock, so a concurrent insert of the same endpoint is possible:
    // the unique index settles it and the loser reports the winner's row.
    const [inserted] = await tx
      .insert(subscriptions)
      .values({ appId, ...keys })
      .onConflictDoUpdate({
        target: [subscriptions.appId, subscriptions.endpoint],
        set: { p256dh: keys.p256dh, auth: keys.auth, status: 'active', expiredAt: null, updatedAt: sql`now()` },
      })
      .returning({ id: subscriptions.id, created: sql<boolean>`(xmax = 0)` });
    if (!inserted) throw new Error('inserting the subscription returned no row');
    return { id: inserted.id, created: Boolean(inserted.created) };
  });
}

export async function deleteSubscription(db: Database, appId: string, endpoint: string): Promise<boolean> {
  const deleted = await db
    .delete(subscriptions)
    .where(and(eq(subscriptions.appId, appId), eq(subscriptions.endpoint, endpoint)))
    .returning({ id: subscriptions.id });
  return deleted.length > 0;
}

export interface SubscriptionSummary {
  id: string;
  endpoint: string;
  status: SubscriptionStatus;
  createdAt: Date;
}

/**
 * One page of the app's subscriptions, newest first, of one status or both. Served by
 * `subscriptions_app_status_created_idx` with a status, `subscriptions_app_created_idx` without:
 * an Index Scan with the row comparison as an index condition under a Limit, no Sort.
 */
export async function listSubscriptions(
  db: Database,
  appId: string,
  page: { limit: number; after: KeysetPosition | null; status: SubscriptionStatus | null },
): Promise<Page<SubscriptionSummary>> {
  const rows = await db
    .select({
      id: subscriptions.id,
      endpoint: subscriptions.endpoint,
      status: subscriptions.status,
      createdAt: subscriptions.createdAt,
      cursorAt: cursorTimestamp(subscriptions.createdAt),
    })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.appId, appId),
        page.status ? eq(subscriptions.status, page.status) : undefined,
        page.after ? beforePosition(subscriptions.createdAt, subscriptions.id, page.after) : undefined,
      ),
    )
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit);
}

/** Deletes one subscription of `appId` by id; false when the app has no such subscription. */
export async function deleteSubscriptionById(db: Database, appId: string, id: string): Promise<boolean> {
  const deleted = await db
    .delete(subscriptions)
    .where(and(eq(subscriptions.appId, appId), eq(subscriptions.id, id)))
    .returning({ id: subscriptions.id });
  return deleted.length > 0;
}
