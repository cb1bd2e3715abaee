import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database } from '../../client.js';
import { notifications } from '../../schema.js';
import { withNotificationFinishedOutbox } from '../webhook-outbox.js';

export interface ChunkKey {
  notificationId: string;
  firstSubscriptionId: string;
  attempt: number;
}

export interface DeliveryChunk extends ChunkKey {
  appId: string;
  subscriptionIds: string[];
  /** Not to be sent before this instant (Retry-After / backoff of a retry chunk). */
  notBefore: Date;
}

export interface ChunkCounts {
  sent: number;
  failed: number;
  expired: number;
  /** Held back by the app's frequency cap. */
  skipped?: number;
}

export const isUnfinished = sql`${notifications.status} in ('queued', 'sending')`;

/**
 * Adds counts to a notification and finishes it, atomically, once `sent + failed + expired +
 * skipped` reaches `targets`: `completed`, or `failed` when nothing was sent nor held back by the
 * frequency cap (the right-hand sides read the row's values before this update). The
 * `notification.*` webhook event is written in the same statement when that happens. A send stopped
 * by its account's suspension (already `failed`) only adds the counts of a chunk that was under
 * way: it stays as the suspension left it, with no event. `also` sets more columns in the same
 * update (a fragment ending with a comma).
 */
export function addToCounters(sql: postgres.Sql, notificationId: string, counts: ChunkCounts, also = sql``) {
  const { sent, failed, expired } = counts;
  const skipped = counts.skipped ?? 0;
  const total = sent + failed + expired + skipped;
  return withNotificationFinishedOutbox(
    sql,
    sql`update notifications n set ${also} sent = n.sent + ${sent}, failed = n.failed + ${failed},
      expired = n.expired + ${expired}, skipped = n.skipped + ${skipped},
      status = case when n.status in ('queued', 'sending') and n.sent + n.failed + n.expired + n.skipped + ${total} >= n.targets
        then (case when n.sent + ${sent} + n.skipped + ${skipped} > 0 then 'completed' else 'failed' end)
        else n.status end,
      completed_at = case when n.sent + n.failed + n.expired + n.skipped + ${total} >= n.targets
        then coalesce(n.completed_at, now()) else n.completed_at end,
      updated_at = now()
    where n.id = ${notificationId}
    returning n.id, n.app_id, n.status, n.error_code`,
  );
}

/** A SET clause (for `addToCounters`'s `also`) adding `reasons` to the notification's per-reason counts. */
export const addFailureReasons = (sql: postgres.Sql, reasons: Readonly<Record<string, number>>) => sql`
  failure_reasons = (select coalesce(jsonb_object_agg(r.key, r.count), '{}'::jsonb) from (
    select e.key, sum(e.value::int) as count from (
      select key, value from jsonb_each_text(n.failure_reasons)
      union all select key, value from jsonb_each_text(${JSON.stringify(reasons)}::jsonb)) e
    group by e.key) r),`;

export type Sql = Database['$client'];
export const inTransaction = (sql: postgres.TransactionSql): Sql => sql as unknown as Sql;
