import { sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import type { EngagementEventType, EngagementType, NotificationPayload } from '../schema.js';

export interface EngagementEvent {
  notificationId: string;
  subscriptionId: string;
  type: EngagementType;
  /** The button clicked (`clicked` only): counted in `actionClicks` beside the click itself. */
  action?: string;
}

/** The `notification_events` rows an event stands for: a button click is also a click. */
function eventRows(event: EngagementEvent): EngagementEventType[] {
  if (event.type === 'clicked' && event.action !== undefined) return ['clicked', `action:${event.action}`];
  return [event.type];
}

/**
 * The subscription an engagement event may be counted for: `endpoint` must be a subscriber of
 * `appId` and `notificationId` a notification of the same app. Null otherwise (the caller answers
 * the same either way, so a browser learns nothing about what exists).
 */
export async function findEngagementTarget(
  db: Database,
  appId: string,
  notificationId: string,
  endpoint: string,
): Promise<string | null> {
  const rows = await db.execute<{ id: string }>(sql`
    select s.id from subscriptions s
    where s.app_id = ${appId} and s.endpoint = ${endpoint}
      and exists (select 1 from notifications n where n.id = ${notificationId} and n.app_id = ${appId})
    limit 1`);
  return rows[0]?.id ?? null;
}

/**
 * Counts a batch of events in ONE statement (atomic): a multi-row INSERT into
 * `notification_events` that skips (notification, subscription, type) already counted, and an
 * UPDATE adding what was new to each notification's `shown` / `clicked` / `action_clicks`.
 * Replaying a batch changes nothing, so a flush that dies after COMMIT but before it trims its
 * buffer is harmless. A pair whose notification and subscription belong to different apps is
 * dropped (the route already checked; this keeps the write tenant-safe on its own).
 *
 * Engagement is counted only when it was earned (CONTRACT 1.2): the subscription must be among the
 * notification's delivery targets, i.e. in one of its first-attempt `notification_chunks` (the
 * fan-out writes them before any push leaves, and they are never deleted while the notification
 * exists). The check is part of this statement, a range probe of the chunk primary key
 * (notification_id, first_subscription_id), so POST /events spends no round trip on it.
 * Returns how many shown/clicked events were new.
 */
export async function countEngagementEvents(db: Database, events: readonly EngagementEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const values = sql.join(
    events.flatMap((event) =>
      eventRows(event).map((type) => sql`(${event.notificationId}::uuid, ${event.subscriptionId}::uuid, ${type})`),
    ),
    sql`, `,
  );
  const rows = await db.execute<{ counted: number }>(sql`
    with incoming (notification_id, subscription_id, type) as (values ${values}),
    inserted as (
      insert into notification_events (notification_id, subscription_id, type)
      select distinct i.notification_id, i.subscription_id, i.type from incoming i
      join notifications n on n.id = i.notification_id
      join subscriptions s on s.id = i.subscription_id and s.app_id = n.app_id
      where exists (
        select 1 from notification_chunks c
        where c.notification_id = i.notification_id and c.first_subscription_id <= i.subscription_id
          and c.attempt = 1 and c.last_subscription_id >= i.subscription_id
          and i.subscription_id = any(c.subscription_ids)
      )
        -- A button click counts only for a button the notification has.
        and (i.type not like 'action:%' or exists (
          select 1 from jsonb_array_elements(coalesce(n.payload -> 'actions', '[]'::jsonb)) b
          where b ->> 'action' = substr(i.type, 8)
        ))
      on conflict do nothing
      returning notification_id, type
    ),
    totals as (
      select notification_id,
             count(*) filter (where type = 'shown')::int as shown,
             count(*) filter (where type = 'clicked')::int as clicked
      from inserted group by notification_id
    ),
    per_action as (
      select notification_id, substr(type, 8) as action, count(*)::int as n
      from inserted where type like 'action:%' group by 1, 2
    ),
    actions as (
      select notification_id, jsonb_object_agg(action, n) as added from per_action group by notification_id
    ),
    updated as (
      update notifications n
      set shown = n.shown + t.shown, clicked = n.clicked + t.clicked,
        action_clicks = case when a.added is null then n.action_clicks else (
          select jsonb_object_agg(k, coalesce((n.action_clicks ->> k)::int, 0) + coalesce((a.added ->> k)::int, 0))
          from (select jsonb_object_keys(n.action_clicks) union select jsonb_object_keys(a.added)) as keys(k)
        ) end
      from totals t left join actions a on a.notification_id = t.notification_id
      where n.id = t.notification_id
      returning t.shown + t.clicked as counted
    )
    select coalesce(sum(counted), 0)::int as counted from updated`);
  return Number(rows[0]?.counted ?? 0);
}

export interface ClickLinkTarget {
  payload: NotificationPayload;
  /** The app's page for a notification without `url`. */
  defaultUrl: string | null;
}

/**
 * What a verified click link opens: the notification with its app's `defaultUrl`, when the
 * notification still exists and the subscription is one of the same app. One indexed read.
 */
export async function findClickLinkTarget(
  db: Database,
  notificationId: string,
  subscriptionId: string,
): Promise<ClickLinkTarget | null> {
  const rows = await db.execute<{ payload: NotificationPayload; default_url: string | null }>(sql`
    select n.payload, a.default_url from notifications n
    join apps a on a.id = n.app_id
    where n.id = ${notificationId}
      and exists (select 1 from subscriptions s where s.id = ${subscriptionId} and s.app_id = n.app_id)`);
  const row = rows[0];
  return row ? { payload: row.payload, defaultUrl: row.default_url } : null;
}
