import { sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import type { EngagementEventType, EngagementType, NotificationPayload } from '../schema.js';

interface EngagementFields {
  notificationId: string;
  type: EngagementType;
  /** The button clicked (`clicked` only): counted in `actionClicks` beside the click itself. */
  action?: string;
  /** What a conversion was worth (`converted` only): summed in `conversionValue`. */
  value?: number;
}

/**
 * One `shown`, `clicked` or `converted`, for a subscription known by id (a click link carries it), or as a
 * browser reports it: an endpoint of the key's app, resolved when the event is counted, so the
 * request that reports it costs no round trip to PostgreSQL.
 */
export type EngagementEvent = EngagementFields & ({ subscriptionId: string } | { appId: string; endpoint: string });

function eventRows(event: EngagementEvent): EngagementEventType[] {
  if (event.type === 'clicked' && event.action !== undefined) return ['clicked', `action:${event.action}`];
  return [event.type];
}

/** Who an event is for: the first conversion reported for a subscription is the one whose value counts. */
const eventKey = (event: EngagementEvent) =>
  'subscriptionId' in event
    ? `${event.notificationId}|${event.subscriptionId}`
    : `${event.notificationId}|${event.appId}|${event.endpoint}`;

/** Of several conversions for one (notification, subscription) in a batch, keeps the first. */
function firstConversions(events: readonly EngagementEvent[]): EngagementEvent[] {
  const converted = new Set<string>();
  return events.filter((event) => {
    if (event.type !== 'converted') return true;
    const key = eventKey(event);
    if (converted.has(key)) return false;
    converted.add(key);
    return true;
  });
}

/**
 * Counts a batch of events in one statement: an INSERT into `notification_events` that skips what
 * was already counted, and an UPDATE adding what was new to each notification. Replaying a batch
 * changes nothing, so a flush that dies after COMMIT but before it trims its buffer is harmless.
 *
 * Ownership is checked here, for the whole batch at once: an event counts only when its
 * subscription and its notification belong to the reporting key's app. Engagement is counted only
 * when it was earned (docs/engagement.md): the subscription must be in one of the notification's
 * first-attempt `notification_chunks`, a range probe of their primary key in this statement, so
 * POST /events spends no round trip on it. Returns how many shown/clicked/converted events were new.
 *
 * A conversion is counted once per (notification, subscription) like the others: the first one
 * counted keeps its value, and a later one with another value changes nothing.
 */
export async function countEngagementEvents(db: Database, events: readonly EngagementEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  // The batch as one json parameter, not a VALUES list of five parameters a row: PostgreSQL parses a
  // json array faster than it binds that many parameters, and the API builds no placeholders.
  const incoming = firstConversions(events).flatMap((event) =>
    eventRows(event).map((type) => {
      const value = type === 'converted' ? (event.value ?? null) : null;
      return 'subscriptionId' in event
        ? { notification_id: event.notificationId, subscription_id: event.subscriptionId, type, value }
        : { notification_id: event.notificationId, app_id: event.appId, endpoint: event.endpoint, type, value };
    }),
  );
  const rows = await db.execute<{ counted: number }>(sql`
    with incoming as (
      select * from json_to_recordset(${JSON.stringify(incoming)}::json)
        as i(notification_id uuid, subscription_id uuid, app_id uuid, endpoint text, type text, value numeric)
    ),
    resolved as (
      select i.notification_id, i.app_id, i.type, i.value, coalesce(i.subscription_id, (
        select s.id from subscriptions s where s.app_id = i.app_id and s.endpoint = i.endpoint
      )) as subscription_id
      from incoming i
    ),
    inserted as (
      -- The row carries its notification's app and creation time, which route it to the month's
      -- partition. ON CONFLICT names no target on purpose: every unique index of the partition the
      -- row lands in is an arbiter, so a late event of a notification created before migration 0041
      -- meets the row counted then through the legacy partition's own key.
      insert into notification_events (notification_id, subscription_id, type, value, variant, app_id,
        notification_created_at)
      select distinct i.notification_id, i.subscription_id, i.type, i.value, pushed.variant, n.app_id, n.created_at
      from resolved i
      -- Each a probe of a key per incoming row, whatever the statistics: a LIMIT keeps the planner
      -- from turning these into hash joins that scan every partition of the notifications and the
      -- whole subscriptions table, which it does with the json's default estimate of 100 rows when
      -- the tables have never been analyzed.
      join lateral (
        select n.app_id, n.created_at, n.payload from notifications n
        where n.id = i.notification_id and (i.app_id is null or n.app_id = i.app_id) limit 1
      ) n on true
      join lateral (
        select 1 from subscriptions s where s.id = i.subscription_id and s.app_id = n.app_id limit 1
      ) s on true
      -- Earned only when pushed: the first-attempt chunk holding the subscription, and in it the
      -- letter of the A/B variant it received (null without variants).
      join lateral (
        select case when c.variants is null then null
          else substr(c.variants, array_position(c.subscription_ids, i.subscription_id), 1) end as variant
        from notification_chunks c
        where c.notification_id = i.notification_id and c.first_subscription_id <= i.subscription_id
          and c.attempt = 1 and c.last_subscription_id >= i.subscription_id
          and i.subscription_id = any(c.subscription_ids)
        limit 1
      ) pushed on true
        -- A button click counts only for a button the notification has.
      where (i.type not like 'action:%' or exists (
          select 1 from jsonb_array_elements(coalesce(n.payload -> 'actions', '[]'::jsonb)) b
          where b ->> 'action' = substr(i.type, 8)
        ))
      on conflict do nothing
      returning notification_id, type, value, variant
    ),
    totals as (
      select notification_id,
             count(*) filter (where type = 'shown')::int as shown,
             count(*) filter (where type = 'clicked')::int as clicked,
             count(*) filter (where type = 'converted')::int as converted,
             coalesce(sum(value) filter (where type = 'converted'), 0) as conversion_value
      from inserted group by notification_id
    ),
    per_action as (
      select notification_id, substr(type, 8) as action, count(*)::int as n
      from inserted where type like 'action:%' group by 1, 2
    ),
    actions as (
      select notification_id, jsonb_object_agg(action, n) as added from per_action group by notification_id
    ),
    variant_counts as (
      select notification_id, jsonb_object_agg(variant, counts) as added from (
        select notification_id, variant, jsonb_build_object('shown', count(*) filter (where type = 'shown'),
          'clicked', count(*) filter (where type = 'clicked'), 'converted', count(*) filter (where type = 'converted'))
          as counts
        from inserted where variant is not null and type in ('shown', 'clicked', 'converted')
        group by notification_id, variant
      ) v group by notification_id
    ),
    updated as (
      update notifications n
      set shown = n.shown + t.shown, clicked = n.clicked + t.clicked, converted = n.converted + t.converted,
        conversion_value = n.conversion_value + t.conversion_value,
        action_clicks = case when a.added is null then n.action_clicks else (
          select jsonb_object_agg(k, coalesce((n.action_clicks ->> k)::int, 0) + coalesce((a.added ->> k)::int, 0))
          from (select jsonb_object_keys(n.action_clicks) union select jsonb_object_keys(a.added)) as keys(k)
        ) end,
        variant_stats = case when v.added is null then n.variant_stats else add_variant_counts(n.variant_stats, v.added) end
      from totals t left join actions a on a.notification_id = t.notification_id
        left join variant_counts v on v.notification_id = t.notification_id
      where n.id = t.notification_id
      returning t.shown + t.clicked + t.converted as counted
    )
    select coalesce(sum(counted), 0)::int as counted from updated`);
  return Number(rows[0]?.counted ?? 0);
}

export interface ClickLinkTarget {
  payload: NotificationPayload;
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
