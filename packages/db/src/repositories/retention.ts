import type { Database } from '../client.js';
import { LEGACY_EVENT_APP_ID } from '../schema.js';
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
 *
 * Notifications, their chunks, answers, local-time groups and engagement events live in monthly
 * partitions by the notification's creation (migrations 0041 and 0044): a month whose partitions
 * ended more than `notificationDays` ago is dropped whole, the five tables' partitions in one
 * transaction whatever their size. So a notification is kept until its month is dropped: between
 * `notificationDays` and a month more. The rows no month partition covers, those of the legacy
 * partitions (a database older than the partitions: until their whole range is due) and of the
 * default ones, and those of a month that must wait for an unfinished notification, still go a
 * batch at a time with their notification.
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
  /** Event rows deleted a batch at a time (not those of dropped partitions). */
  events: number;
  /** Month partitions dropped whole: of the notifications with the four tables beside, or of the events alone. */
  partitions: number;
  chunks: number;
  webhookMessages: number;
  auditEntries: number;
  expiredSubscriptions: number;
}

/** Notifications taken per round: their children go in batches first, then the notifications. */
const NOTIFICATIONS_PER_ROUND = 100;

/** The statements of a pass, by name: the plan test explains each. `$1` etc. as listed beside them. */
export const retentionStatements = {
  /**
   * $1 days, $2 limit, $3 where the month partitions still kept begin (`keptEventsFrom`): a
   * notification created from then on waits for its month's partition to be dropped.
   */
  expiredNotifications: `select id, app_id from notifications
    where status in ('completed', 'failed', 'canceled') and created_at < now() - make_interval(days => $1)
      and created_at < $3::timestamptz
    order by created_at limit $2`,
  /**
   * $1 notification ids, $2 their apps (and the legacy rows' app id), $3 limit. By key, not ctid: a
   * ctid is unique only within one partition.
   */
  events: `delete from notification_events where (notification_id, subscription_id, type) in (
      select notification_id, subscription_id, type from notification_events
      where notification_id = any($1::uuid[]) and app_id = any($2::uuid[]) limit $3)
    and notification_id = any($1::uuid[]) and app_id = any($2::uuid[])`,
  /**
   * $1 days. The start of the oldest month partition of the notifications not due yet; infinity when
   * there is none. A due month still there holds an unfinished notification: the others of that
   * month go a batch at a time, and the partition once that one is done.
   */
  keptEventsFrom: `select coalesce(min(p.lower), 'infinity')::text as "from" from table_partitions('notifications') p
    where p.lower > '-infinity' and p.upper > now() - make_interval(days => $1)`,
  /** $1 days: drops one month that is due, returns the name of the partition dropped (null: none). */
  partition: 'select drop_expired_notification_partition($1) as name',
  /**
   * $1 notification ids, $2 limit. The ctid is unique only within one partition: the outer delete
   * names the notifications again, so a row of another partition at the same ctid stays.
   */
  chunkAnswers: `delete from notification_chunk_answers where ctid = any(array(
    select ctid from notification_chunk_answers where notification_id = any($1::uuid[]) limit $2))
    and notification_id = any($1::uuid[])`,
  /** $1 notification ids, $2 limit (as for `chunkAnswers`) */
  chunks: `delete from notification_chunks where ctid = any(array(
    select ctid from notification_chunks where notification_id = any($1::uuid[]) limit $2))
    and notification_id = any($1::uuid[])`,
  /** $1 notification ids: a handful of rows a notification at most */
  localGroups: 'delete from notification_local_groups where notification_id = any($1::uuid[])',
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
    partitions: 0,
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
  const drain = async (text: string, params: unknown[], count: (n: number) => void) => {
    for (;;) {
      if (budget <= 0) return false;
      const result = await run(text, [...params, policy.batchSize]);
      count(result.count);
      if (result.count < policy.batchSize) return true;
    }
  };

  const partitions = await dropExpiredPartitions(db, policy.notificationDays, () => budget-- > 0);
  removed.partitions = partitions.dropped;
  const [kept] = await run(retentionStatements.keptEventsFrom, [policy.notificationDays]);
  const keptFrom = String(kept?.from ?? 'infinity');
  // A due month whose drop had to wait for its lock is dropped next pass: its notifications wait
  // too, rather than have its rows deleted one batch at a time meanwhile.
  while (budget > 0 && !partitions.waiting) {
    const rows = await run(retentionStatements.expiredNotifications, [
      policy.notificationDays,
      NOTIFICATIONS_PER_ROUND,
      keptFrom,
    ]);
    const ids = rows.map((row) => String(row.id));
    if (ids.length === 0) break;
    const apps = [...new Set(rows.map((row) => String(row.app_id))), LEGACY_EVENT_APP_ID];
    if (!(await drain(retentionStatements.events, [ids, apps], (n) => (removed.events += n)))) break;
    if (!(await drain(retentionStatements.chunkAnswers, [ids], () => undefined))) break;
    if (!(await drain(retentionStatements.chunks, [ids], (n) => (removed.chunks += n)))) break;
    await run(retentionStatements.localGroups, [ids]);
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

/** Whether an error is PostgreSQL's `lock_not_available` (55P03): a lock_timeout ran out. */
const lockTimedOut = (error: unknown) => (error as { code?: string }).code === '55P03';

/**
 * Drops the months that retention no longer keeps, oldest first, one transaction each (the five
 * tables' partitions of a month together), while `more()` allows. A drop waits at most
 * `lockTimeout` for each table's lock (a long query reading it holds it) and is otherwise left to
 * the next pass (`waiting`), so that writers never queue behind it for long.
 */
export async function dropExpiredPartitions(
  db: Database,
  retentionDays: number,
  more: () => boolean = () => true,
  lockTimeout = '5s',
): Promise<{ dropped: number; waiting: boolean }> {
  let dropped = 0;
  while (more()) {
    try {
      const name = await db.$client.begin(async (tx) => {
        await tx`select set_config('lock_timeout', ${lockTimeout}, true)`;
        const [row] = await tx.unsafe(retentionStatements.partition, [retentionDays]);
        return row?.name as string | null;
      });
      if (!name) break;
      dropped++;
    } catch (error) {
      if (lockTimedOut(error)) return { dropped, waiting: true };
      throw error;
    }
  }
  return { dropped, waiting: false };
}

/**
 * Creates this month's partitions of the notifications and the four tables beside them, and the
 * `monthsAhead` next ones, when missing (the worker's retention pass, so that the months ahead always
 * exist); returns how many months it made. Safe with several workers at once: they take turns on an
 * advisory lock. Like a drop, it waits at most `lockTimeout` for each table's lock and otherwise
 * returns 0, to try again next pass.
 */
export async function createNotificationPartitions(db: Database, monthsAhead = 2, lockTimeout = '5s'): Promise<number> {
  try {
    return await db.$client.begin(async (tx) => {
      await tx`select set_config('lock_timeout', ${lockTimeout}, true)`;
      const [row] = await tx`select create_notification_partitions(${monthsAhead}::int) as made`;
      return Number(row?.made ?? 0);
    });
  } catch (error) {
    if (lockTimedOut(error)) return 0;
    throw error;
  }
}
