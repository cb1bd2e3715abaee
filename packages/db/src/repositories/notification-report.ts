import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { LEGACY_EVENT_APP_ID } from '../schema.js';

/** Rows fetched per round trip of a report's cursor. */
const CURSOR_BATCH = 500;

/**
 * What became of one targeted subscription: `sent`, `failed`, `expired` (the push service said it
 * is gone, or it went before it was pushed), `skipped`, or `pending` while it is still being sent.
 */
export type TargetOutcome = 'sent' | 'failed' | 'expired' | 'skipped' | 'pending';

export interface ReportRow {
  subscriptionId: string;
  /** Null when the subscription has been deleted since. */
  uid: string | null;
  variant: string | null;
  outcome: TargetOutcome;
  /** Why a push failed, as the push service answered (`403 BadJwtToken`); null otherwise or when unknown. */
  failureReason: string | null;
  shown: boolean;
  clicked: boolean;
  /** The buttons clicked, by their `action`, space-separated. */
  actions: string | null;
  converted: boolean;
  conversionValue: string | null;
}

/**
 * One row per subscription a notification was planned for, in subscription id order, read through
 * one cursor (constant memory whatever the send's size). The outcome is the one recorded by the
 * last attempt that answered it (`answered_kinds` of its chunks); engagement comes from
 * `notification_events`. What retention has removed (the notification, its chunks and events) is
 * not here: the caller answers 404 for a notification that is gone.
 */
export function notificationReport(db: Database, notificationId: string): AsyncIterable<ReportRow[]> {
  const sql = db.$client;
  return sql<ReportRow[]>`
    select t.id as "subscriptionId", s.uid, t.letter as variant,
      case
        when t.kind is null or t.kind = '' then case when c.completed_at is null then 'pending' else 'expired' end
        when t.kind = 'r' then coalesce(r.outcome, 'pending')
        else answer_outcome(t.kind)
      end as outcome,
      case when t.kind = 'r' then r.reason else c.failure_details ->> t.id::text end as "failureReason",
      coalesce(e.shown, false) as shown, coalesce(e.clicked, false) as clicked, e.actions,
      coalesce(e.converted, false) as converted, e.value::text as "conversionValue"
    from notification_chunks c
    join notifications n on n.id = c.notification_id
    cross join lateral (
      select p.id, p.letter, k.kind
      from unnest(c.subscription_ids, string_to_array(c.variants, null)) as p(id, letter)
      left join (
        select k.id, substr(c.answered_kinds, k.at::int, 1) as kind
        from unnest(c.answered_subscription_ids) with ordinality as k(id, at)
      ) k on k.id = p.id
    ) t
    left join lateral (
      select answer_outcome(substr(x.answered_kinds, k.at::int, 1)) as outcome, x.failure_details ->> t.id::text as reason
      from notification_chunks x
      cross join lateral unnest(x.answered_subscription_ids) with ordinality as k(id, at)
      where t.kind = 'r' and x.notification_id = c.notification_id and x.attempt > 1
        and x.first_subscription_id <= t.id and x.last_subscription_id >= t.id and k.id = t.id
        and substr(x.answered_kinds, k.at::int, 1) <> 'r'
      order by x.attempt desc limit 1
    ) r on true
    left join subscriptions s on s.id = t.id
    left join lateral (
      select bool_or(ev.type = 'shown') as shown, bool_or(ev.type = 'clicked') as clicked,
        string_agg(substr(ev.type, 8), ' ' order by ev.type) filter (where ev.type like 'action:%') as actions,
        bool_or(ev.type = 'converted') as converted, max(ev.value) filter (where ev.type = 'converted') as value
      -- The notification's month partition, and the legacy one (rows stored before migration 0041).
      from notification_events ev where ev.notification_id = c.notification_id and ev.subscription_id = t.id
        and ev.app_id in (n.app_id, ${LEGACY_EVENT_APP_ID}::uuid)
        and ev.notification_created_at in (n.created_at, '-infinity'::timestamptz)
    ) e on true
    where c.notification_id = ${notificationId} and c.attempt = 1
    order by c.first_subscription_id, t.id`.cursor(CURSOR_BATCH);
}

/** The app a notification belongs to; null for none (or a malformed id). */
export async function notificationAppId(db: Database, notificationId: string): Promise<string | null> {
  if (!isUuid(notificationId)) return null;
  const [row] = await db.$client<{ app_id: string }[]>`select app_id from notifications where id = ${notificationId}`;
  return row?.app_id ?? null;
}
