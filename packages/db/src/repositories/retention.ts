import type { Database } from '../client.js';
import { deleteExpiredAuditEntries } from './audit-log.js';

/**
 * Retention: finished notifications older than `notificationDays` go, with everything hanging off
 * them (engagement events, chunks, in-chunk progress), and webhook events older than `webhookDays`
 * with their attempts, and expired (or retired) subscriptions expired more than
 * `expiredSubscriptionDays` ago, with their engagement events (the notifications keep their counts).
 * Each statement deletes at most `batchSize` rows found by an index range scan
 * (migration 0019), so a pass never holds many locks for long and costs the same at any table size.
 * `monthly_usage` is never touched: the monthly limit reads it, and the retention is longer than a
 * month, so this month's notifications (which `appSendsThisMonth` sums) are always kept.
 */
export interface RetentionPolicy {
  notificationDays: number;
  webhookDays: number;
  /** Audit-log entries: never fewer than 365 days, whatever is asked (`deleteExpiredAuditEntries`). */
  auditDays?: number;
  expiredSubscriptionDays: number;
  batchSize: number;
  /** Statements one pass may run at most; the rest waits for the next pass. */
  maxStatements?: number;
}

export interface RetentionRemoved {
  notifications: number;
  events: number;
  chunks: number;
  webhookMessages: number;
  auditEntries: number;
  expiredSubscriptions: number;
}

/** Notifications taken per round: their children go in batches first, then the notifications. */
const NOTIFICATIONS_PER_ROUND = 100;

/** The statements of a pass, by name: the plan test explains each. `$1` etc. as listed beside them. */
export const retentionStatements = {
  /** $1 days, $2 limit */
  expiredNotifications: `select id from notifications
    where status in ('completed', 'failed', 'canceled') and created_at < now() - make_interval(days => $1)
    order by created_at limit $2`,
  /** $1 notification ids, $2 limit */
  events: `delete from notification_events where ctid = any(array(
    select ctid from notification_events where notification_id = any($1::uuid[]) limit $2))`,
  /** $1 notification ids, $2 limit */
  chunkAnswers: `delete from notification_chunk_answers where ctid = any(array(
    select ctid from notification_chunk_answers where notification_id = any($1::uuid[]) limit $2))`,
  /** $1 notification ids, $2 limit */
  chunks: `delete from notification_chunks where ctid = any(array(
    select ctid from notification_chunks where notification_id = any($1::uuid[]) limit $2))`,
  /** $1 notification ids */
  notifications: 'delete from notifications where id = any($1::uuid[])',
  /** $1 days, $2 limit (attempts go with their event: on delete cascade, by webhook_attempts_message_idx) */
  webhookMessages: `delete from webhook_messages where id = any(array(
    select id from webhook_messages where created_at < now() - make_interval(days => $1)
    order by created_at limit $2))`,
  /**
   * $1 days, $2 limit. Only an expired subscription goes: one re-activated meanwhile has status
   * `active` again (and `expired_at` null) when the delete reads it, so it stays.
   */
  expiredSubscriptions: `delete from subscriptions where id = any(array(
    select id from subscriptions where status = 'expired' and expired_at < now() - make_interval(days => $1)
    order by expired_at limit $2)) and status = 'expired'`,
} as const;

export async function deleteExpiredData(db: Database, policy: RetentionPolicy): Promise<RetentionRemoved> {
  const sql = db.$client;
  const removed: RetentionRemoved = {
    notifications: 0,
    events: 0,
    chunks: 0,
    webhookMessages: 0,
    expiredSubscriptions: 0,
    auditEntries: 0,
  };
  let budget = policy.maxStatements ?? 1_000;
  const run = async (text: string, params: unknown[]) => {
    budget--;
    return sql.unsafe(text, params as never[], { prepare: true });
  };
  /** Deletes in batches until a batch comes back short; false when the budget ran out first. */
  const drain = async (text: string, ids: string[], count: (n: number) => void) => {
    for (;;) {
      if (budget <= 0) return false;
      const result = await run(text, [ids, policy.batchSize]);
      count(result.count);
      if (result.count < policy.batchSize) return true;
    }
  };

  while (budget > 0) {
    const rows = await run(retentionStatements.expiredNotifications, [
      policy.notificationDays,
      NOTIFICATIONS_PER_ROUND,
    ]);
    const ids = rows.map((row) => String(row.id));
    if (ids.length === 0) break;
    if (!(await drain(retentionStatements.events, ids, (n) => (removed.events += n)))) break;
    if (!(await drain(retentionStatements.chunkAnswers, ids, () => undefined))) break;
    if (!(await drain(retentionStatements.chunks, ids, (n) => (removed.chunks += n)))) break;
    removed.notifications += (await run(retentionStatements.notifications, [ids])).count;
    if (ids.length < NOTIFICATIONS_PER_ROUND) break;
  }
  while (budget > 0) {
    const result = await run(retentionStatements.webhookMessages, [policy.webhookDays, policy.batchSize]);
    removed.webhookMessages += result.count;
    if (result.count < policy.batchSize) break;
  }
  while (budget > 0) {
    const result = await run(retentionStatements.expiredSubscriptions, [
      policy.expiredSubscriptionDays,
      policy.batchSize,
    ]);
    removed.expiredSubscriptions += result.count;
    if (result.count < policy.batchSize) break;
  }
  if (budget > 0) removed.auditEntries = await deleteExpiredAuditEntries(db, policy.auditDays ?? 365, policy.batchSize);
  return removed;
}
