import type { Database } from '../client.js';
import type { Sql } from './deliveries/shared.js';

export interface DayStats {
  /** `YYYY-MM-DD`, a UTC day. */
  date: string;
  sent: number;
  failed: number;
  expired: number;
  skipped: number;
  shown: number;
  clicked: number;
  converted: number;
  subscribed: number;
  unsubscribed: number;
}

export type DayCounts = Partial<Omit<DayStats, 'date'>>;

/**
 * Adds to today's (UTC) counts of an app, in the caller's transaction: for what the triggers of
 * migration 0039 do not see (a send's skipped targets). Nothing for an app being deleted.
 */
export async function addToAppDayStats(sql: Sql, appId: string, counts: DayCounts): Promise<void> {
  await sql`select add_app_day_stats(${appId}::uuid, sent => ${counts.sent ?? 0}, failed => ${counts.failed ?? 0},
    expired => ${counts.expired ?? 0}, skipped => ${counts.skipped ?? 0}, shown => ${counts.shown ?? 0},
    clicked => ${counts.clicked ?? 0}, converted => ${counts.converted ?? 0}, subscribed => ${counts.subscribed ?? 0},
    unsubscribed => ${counts.unsubscribed ?? 0})`;
}

/**
 * The app's counts per UTC day over the last `days` days, today last, a day without any all zeros:
 * a range of the rolled-up rows' primary key (one row a day, a few on a day when writers met).
 */
export async function appDayStats(db: Database, appId: string, days: number): Promise<DayStats[]> {
  const rows = await db.$client<(Omit<DayStats, 'date'> & { date: string })[]>`
    with bounds as (
      select (now() at time zone 'UTC')::date as today, (now() at time zone 'UTC')::date - ${days - 1}::int as first
    ), per_day as (
      select d.day, sum(d.sent) as sent, sum(d.failed) as failed, sum(d.expired) as expired, sum(d.skipped) as skipped,
        sum(d.shown) as shown, sum(d.clicked) as clicked, sum(d.converted) as converted,
        sum(d.subscribed) as subscribed, sum(d.unsubscribed) as unsubscribed
      from app_day_stats d, bounds b
      where d.app_id = ${appId} and d.day >= b.first
      group by d.day
    )
    select to_char(series.day, 'YYYY-MM-DD') as date,
      coalesce(p.sent, 0)::float8 as sent, coalesce(p.failed, 0)::float8 as failed,
      coalesce(p.expired, 0)::float8 as expired, coalesce(p.skipped, 0)::float8 as skipped,
      coalesce(p.shown, 0)::float8 as shown, coalesce(p.clicked, 0)::float8 as clicked,
      coalesce(p.converted, 0)::float8 as converted, coalesce(p.subscribed, 0)::float8 as subscribed,
      coalesce(p.unsubscribed, 0)::float8 as unsubscribed
    from bounds b, generate_series(b.first, b.today, interval '1 day') as series(day)
    left join per_day p on p.day = series.day::date
    order by series.day`;
  return rows.map((row) => ({ ...row }));
}

/**
 * Folds the stripes of an app's past days into stripe 0, a batch of days at a time: a day keeps
 * one row once nobody writes to it any more. Returns the rows removed.
 */
export async function foldAppDayStats(db: Database, batch: number): Promise<number> {
  const [row] = await db.$client<{ folded: number }[]>`
    with days as (
      select app_id, day from app_day_stats
      where stripe > 0 and day < (now() at time zone 'UTC')::date
      group by app_id, day limit ${batch}
    ), removed as (
      delete from app_day_stats d using days
      where d.app_id = days.app_id and d.day = days.day and d.stripe > 0
      returning d.*
    ), sums as (
      select app_id, day, sum(sent) as sent, sum(failed) as failed, sum(expired) as expired, sum(skipped) as skipped,
        sum(shown) as shown, sum(clicked) as clicked, sum(converted) as converted, sum(subscribed) as subscribed,
        sum(unsubscribed) as unsubscribed
      from removed group by app_id, day
    ), added as (
      insert into app_day_stats as d (app_id, day, stripe, sent, failed, expired, skipped, shown, clicked, converted,
        subscribed, unsubscribed)
      select app_id, day, 0, sent, failed, expired, skipped, shown, clicked, converted, subscribed, unsubscribed
      from sums
      on conflict (app_id, day, stripe) do update set sent = d.sent + excluded.sent, failed = d.failed + excluded.failed,
        expired = d.expired + excluded.expired, skipped = d.skipped + excluded.skipped, shown = d.shown + excluded.shown,
        clicked = d.clicked + excluded.clicked, converted = d.converted + excluded.converted,
        subscribed = d.subscribed + excluded.subscribed, unsubscribed = d.unsubscribed + excluded.unsubscribed
    )
    select count(*)::int as folded from removed`;
  return row?.folded ?? 0;
}
