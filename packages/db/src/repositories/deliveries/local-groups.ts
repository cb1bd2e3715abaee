import type { Database } from '../../client.js';
import { audienceFilter, type StoredAudience } from '../audiences.js';
import type { Sql } from './shared.js';

/** Active targets of an audience per time zone (`null`: subscriptions without one). */
export interface ZoneCount {
  zone: string | null;
  targets: number;
}

/** One planned instant of a `localTime` send (stored in `notification_local_groups`). */
export interface LocalGroup {
  dueAt: Date;
  zones: string[];
  /** Also the subscriptions without a zone: the app's zone is among those of this instant. */
  unzoned: boolean;
  targets: number;
}

/**
 * The audience of a `localTime` send counted per zone, in one grouped scan (for everyone, from the
 * counts kept per zone): its groups are planned from these counts, and their sum is the send's
 * `targets`.
 */
export async function countTargetsByZone(
  db: Database,
  appId: string,
  audience: StoredAudience & { subscriptionIds: readonly string[] | null },
): Promise<{ appTimeZone: string; zones: ZoneCount[] }> {
  const sql = db.$client;
  if (audience.subscriptionIds === null && audience.targetKind === 'all') {
    // Everyone: the counts kept per zone as subscriptions change (migration 0040), not a scan.
    const [rows, [app]] = await Promise.all([
      sql<
        { zone: string; active: number }[]
      >`select zone, active from count_active_subscribers_by_zone(${appId}::uuid)`,
      sql<{ time_zone: string }[]>`select time_zone from apps where id = ${appId}`,
    ]);
    return {
      appTimeZone: app?.time_zone ?? 'UTC',
      zones: rows.map((row) => ({ zone: row.zone === '' ? null : row.zone, targets: row.active })),
    };
  }
  const filter = audience.subscriptionIds
    ? sql`and s.id = any(${[...audience.subscriptionIds]}::uuid[])`
    : audienceFilter(
        sql,
        {
          target_kind: audience.targetKind,
          target_uids: audience.targetUids,
          target_tags: audience.targetTags,
          target_segment: audience.targetSegment,
        },
        new Date().toISOString(),
      );
  const [rows, [app]] = await Promise.all([
    sql<{ zone: string | null; targets: number }[]>`
      select s.time_zone as zone, count(*)::int as targets from subscriptions s
      where s.app_id = ${appId} and s.status = 'active' ${filter}
      group by s.time_zone`,
    sql<{ time_zone: string }[]>`select time_zone from apps where id = ${appId}`,
  ]);
  return {
    appTimeZone: app?.time_zone ?? 'UTC',
    zones: rows.map((row) => ({ zone: row.zone, targets: row.targets })),
  };
}

/** The condition on `subscriptions s` that keeps a group's zones. */
export const inLocalGroup = (sql: Sql, group: { zones: readonly string[]; unzoned: boolean }) =>
  group.unzoned
    ? sql`and (s.time_zone is null or s.time_zone = any(${[...group.zones]}::text[]))`
    : sql`and s.time_zone = any(${[...group.zones]}::text[])`;

export interface StartedLocalGroup {
  notificationId: string;
  dueAt: Date;
}

/**
 * Starts the groups of `localTime` sends that are due: marks them started and moves a notification
 * still `scheduled` to `queued`, in one transaction that claims the rows with `FOR UPDATE SKIP
 * LOCKED`, so several workers share them and none starts twice. Groups of a send canceled (or
 * finished) meanwhile are only marked. The caller then queues each notification's fan-out, which
 * plans the started groups; a crash in between leaves an unfinished notification the reconciler
 * re-queues.
 */
export async function startDueLocalGroups(db: Database, limit: number): Promise<StartedLocalGroup[]> {
  return db.$client.begin(async (transaction) => {
    const sql = transaction as unknown as Sql;
    const rows = await sql<{ notification_id: string; due_at: Date | string; status: string }[]>`
      with due as (
        select g.notification_id, g.due_at from notification_local_groups g
        where g.started_at is null and g.due_at <= now()
        order by g.due_at limit ${limit}
        for update of g skip locked
      ), started as (
        update notification_local_groups g set started_at = now()
        from due where g.notification_id = due.notification_id and g.due_at = due.due_at
        returning g.notification_id, g.due_at
      ), moved as (
        update notifications n set status = 'queued', updated_at = now()
        where n.id in (select notification_id from started) and n.status = 'scheduled'
        returning n.id
      )
      select s.notification_id, s.due_at, n.status from started s join notifications n on n.id = s.notification_id`;
    // A notification moved by `moved` still reads as `scheduled` here (the statement's snapshot).
    return rows
      .filter((row) => ['scheduled', 'queued', 'sending'].includes(row.status))
      .map((row) => ({ notificationId: row.notification_id, dueAt: new Date(row.due_at) }));
  }) as Promise<StartedLocalGroup[]>;
}
