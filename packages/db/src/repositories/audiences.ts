import { and, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';
import {
  apps,
  type NotificationTargetKind,
  type SegmentExpression,
  type SubscriptionTags,
  subscriptions,
} from '../schema.js';
import { type AuditContext, recordAudit } from './audit-log.js';
import { compileSegment, countSegment, segmentFragment } from './segments.js';

/** A send's audience as stored on the notification row (`target_kind`, `target_uids`, `target_tags`, `target_segment`). */
export interface StoredAudience {
  targetKind: NotificationTargetKind;
  targetUids: readonly string[] | null;
  targetTags: SubscriptionTags | null;
  targetSegment: SegmentExpression | null;
}

export interface StoredAudienceRow {
  target_kind: NotificationTargetKind;
  target_uids: readonly string[] | null;
  target_tags: SubscriptionTags | null;
  target_segment: SegmentExpression | null;
}

/**
 * With at least one pair, also `s.tags <> '{}'`, so the planner can use the tags index (which holds
 * only subscriptions with tags).
 */
function tagsContain(sql: Database['$client'], tags: SubscriptionTags) {
  const wanted = JSON.stringify(tags);
  return Object.keys(tags).length === 0
    ? sql`and s.tags @> ${wanted}::jsonb`
    : sql`and s.tags @> ${wanted}::jsonb and s.tags <> '{}'::jsonb`;
}

/**
 * The condition on `subscriptions s` that selects a `uids` or `tags` audience (nothing for the other
 * kinds), for the fan-out's keyset pages. `uid = any(…)` is served by `subscriptions_app_uid_idx`,
 * `tags @> …` by the GIN index `subscriptions_active_tags_idx`; both only over active subscriptions,
 * as sends are. The SQL function `count_active_targets` (migrations 0012 and 0023), which every
 * `uids` and `tags` count goes through, applies the same two conditions: change both.
 */
export function audienceFilter(sql: Database['$client'], audience: StoredAudienceRow, counted: string) {
  // `counted`: when the targets were counted, so `subscribedWithinDays` selects what was counted.
  if (audience.target_kind === 'segment' && audience.target_segment !== null)
    return sql`and ${segmentFragment(sql, compileSegment(audience.target_segment, counted))}`;
  if (audience.target_kind === 'uids') return sql`and s.uid = any(${[...(audience.target_uids ?? [])]}::text[])`;
  if (audience.target_kind === 'tags') return tagsContain(sql, audience.target_tags ?? {});
  return sql``;
}

/** Counted in the caller's transaction by the accept statement's functions (see `acceptStatement`). */
export async function countAudience(tx: Transaction | Database, appId: string, audience: StoredAudience) {
  if (audience.targetKind === 'all') {
    const [row] = await tx.execute<{ n: number }>(sql`select count_active_subscribers(${appId}::uuid) as n`);
    return row?.n ?? 0;
  }
  if (audience.targetKind === 'segment') {
    return audience.targetSegment === null ? 0 : countSegment(tx, appId, audience.targetSegment);
  }
  if (audience.targetKind === 'uids' && (audience.targetUids ?? []).length === 0) return 0;
  const uids = audience.targetKind === 'uids' ? [...(audience.targetUids ?? [])] : null;
  const tags = audience.targetKind === 'tags' ? JSON.stringify(audience.targetTags ?? {}) : null;
  const [row] = await tx.execute<{ n: number }>(
    // sql.param: drizzle would spread a bare array into one parameter per element.
    sql`select count_active_targets(${appId}::uuid, ${sql.param(uids)}::text[], ${tags}::jsonb) as n`,
  );
  return row?.n ?? 0;
}

export interface AudienceChange {
  /** Absent: unchanged; null: removed. */
  uid?: string | null;
  /** Absent: unchanged; present: replaces every tag. */
  tags?: SubscriptionTags;
  /** Absent: unchanged; null: removed (`PATCH /subscribe` only). */
  language?: string | null;
  timeZone?: string | null;
}

/** Sets uid and/or tags of one subscription of `appId` by endpoint; null when the app has no such endpoint. */
export async function updateSubscriptionAudience(
  db: Database,
  appId: string,
  endpoint: string,
  change: AudienceChange,
): Promise<{ id: string } | null> {
  const [row] = await db
    .update(subscriptions)
    .set({
      ...(change.uid === undefined ? {} : { uid: change.uid }),
      ...(change.tags === undefined ? {} : { tags: change.tags }),
      ...(change.language === undefined ? {} : { language: change.language }),
      ...(change.timeZone === undefined ? {} : { timeZone: change.timeZone }),
      updatedAt: sql`now()`,
    })
    .where(and(eq(subscriptions.appId, appId), eq(subscriptions.endpoint, endpoint)))
    .returning({ id: subscriptions.id });
  return row ?? null;
}

export async function findIdentitySecretSealed(db: Database, appId: string): Promise<string | null> {
  const [row] = await db.select({ sealed: apps.identitySecretSealed }).from(apps).where(eq(apps.id, appId)).limit(1);
  return row?.sealed ?? null;
}

/**
 * Stores (creating or replacing) the sealed identity secret of an app of `userId`, recorded as
 * `identity_secret.created` in the same transaction; false when not theirs.
 */
export async function storeIdentitySecret(
  db: Database,
  userId: string,
  appId: string,
  sealed: string,
  audit: AuditContext | null,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const updated = await tx
      .update(apps)
      .set({ identitySecretSealed: sealed })
      .where(and(eq(apps.userId, userId), eq(apps.id, appId)))
      .returning({ id: apps.id });
    if (updated.length === 0) return false;
    if (audit) {
      await recordAudit(
        tx,
        { appId },
        { ...audit, action: 'identity_secret.created', target: { type: 'app', id: appId } },
      );
    }
    return true;
  });
}
