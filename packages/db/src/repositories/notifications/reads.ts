import { and, desc, eq, gte, sql } from 'drizzle-orm';
import type { Database } from '../../client.js';
import { isUuid } from '../../ids.js';
import { notifications } from '../../schema.js';
import { beforePosition, cursorTimestamp, type KeysetPosition, type Page, toPage } from '../pagination.js';

import type { Notification, NotificationSummary } from './types.js';

/** One notification of `appId`; null for another app's (tenants never see each other's sends). */
export async function findNotification(db: Database, appId: string, id: string): Promise<Notification | null> {
  if (!isUuid(appId, id)) return null;
  const [row] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.appId, appId), eq(notifications.id, id)))
    .limit(1);
  return row ?? null;
}

export async function appSendsThisMonth(db: Database, appId: string): Promise<number> {
  const [row] = await db
    .select({ sends: sql<number>`coalesce(sum(${notifications.targets}), 0)`.mapWith(Number) })
    .from(notifications)
    .where(
      and(
        eq(notifications.appId, appId),
        gte(notifications.createdAt, sql`date_trunc('month', now() at time zone 'UTC') at time zone 'UTC'`),
      ),
    );
  return row?.sends ?? 0;
}

const summaryColumns = {
  id: notifications.id,
  status: notifications.status,
  targets: notifications.targets,
  sent: notifications.sent,
  failed: notifications.failed,
  expired: notifications.expired,
  skipped: notifications.skipped,
  shown: notifications.shown,
  clicked: notifications.clicked,
  actionClicks: notifications.actionClicks,
  converted: notifications.converted,
  conversionValue: notifications.conversionValue,
  payload: notifications.payload,
  createdAt: notifications.createdAt,
  completedAt: notifications.completedAt,
  sendAt: notifications.sendAt,
  errorCode: notifications.errorCode,
  failureReasons: notifications.failureReasons,
  variantStats: notifications.variantStats,
  winner: notifications.winner,
  winnerAt: notifications.winnerAt,
};

export type CancelResult = { kind: 'canceled'; notification: Notification } | { kind: 'not_cancelable' } | null;

/**
 * Cancels a scheduled send of `appId`; null when the app has no such notification. The UPDATE only
 * matches a row still `scheduled`: a scheduler that is starting it holds the row lock, so this waits,
 * re-reads the status and answers `not_cancelable`; a send is never both started and canceled.
 */
export async function cancelScheduledNotification(db: Database, appId: string, id: string): Promise<CancelResult> {
  const [canceled] = await db
    .update(notifications)
    .set({ status: 'canceled', completedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(notifications.appId, appId), eq(notifications.id, id), eq(notifications.status, 'scheduled')))
    .returning();
  if (canceled) return { kind: 'canceled', notification: canceled };
  return (await findNotification(db, appId, id)) ? { kind: 'not_cancelable' } : null;
}

/** Newest first: an index range scan under a Limit at any page, no Sort (`notifications_app_created_idx`). */
export async function listNotifications(
  db: Database,
  appId: string,
  page: { limit: number; after: KeysetPosition | null },
): Promise<Page<NotificationSummary>> {
  const rows = await db
    .select({ ...summaryColumns, cursorAt: cursorTimestamp(notifications.createdAt) })
    .from(notifications)
    .where(
      and(
        eq(notifications.appId, appId),
        page.after ? beforePosition(notifications.createdAt, notifications.id, page.after) : undefined,
      ),
    )
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit);
}

export interface DailySends {
  date: string;
  sends: number;
}

/** Per UTC day over the last `days` days including today, oldest first, with a 0 for every day without any. */
export async function dailyAppSends(db: Database, appId: string, days: number): Promise<DailySends[]> {
  const rows = await db.execute<{ date: string; sends: string }>(sql`
    with bounds as (
      select (now() at time zone 'UTC')::date as today, (now() at time zone 'UTC')::date - ${days - 1}::int as first
    ), per_day as (
      select (${notifications.createdAt} at time zone 'UTC')::date as day, sum(${notifications.targets}) as sends
      from ${notifications}
      where ${notifications.appId} = ${appId}
        and ${notifications.createdAt} >= ((select first from bounds)::timestamp at time zone 'UTC')
      group by 1
    )
    select to_char(series.day, 'YYYY-MM-DD') as date, coalesce(per_day.sends, 0)::text as sends
    from generate_series((select first from bounds), (select today from bounds), interval '1 day') as series(day)
    left join per_day on per_day.day = series.day::date
    order by series.day`);
  return rows.map((row) => ({ date: row.date, sends: Number(row.sends) }));
}
