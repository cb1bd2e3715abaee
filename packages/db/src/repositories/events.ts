import { sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import type { EngagementType } from '../schema.js';

export interface EngagementEvent {
  notificationId: string;
  subscriptionId: string;
  type: EngagementType;
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
 * UPDATE adding what was new to each notification's `shown` / `clicked`. Replaying a batch
 * changes nothing, so a flush that dies after COMMIT but before it trims its buffer is harmless.
 * A pair whose notification and subscription belong to different apps is dropped (the route
 * already checked; this keeps the write tenant-safe on its own). Returns how many events were new.
 */
export async function countEngagementEvents(db: Database, events: readonly EngagementEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const values = sql.join(
    events.map((event) => sql`(${event.notificationId}::uuid, ${event.subscriptionId}::uuid, ${event.type})`),
    sql`, `,
  );
  const rows = await db.execute<{ counted: number }>(sql`
    with incoming (notification_id, subscription_id, type) as (values ${values}),
    inserted as (
      insert into notification_events (notification_id, subscription_id, type)
      select distinct i.notification_id, i.subscription_id, i.type from incoming i
      join notifications n on n.id = i.notification_id
      join subscriptions s on s.id = i.subscription_id and s.app_id = n.app_id
      on conflict do nothing
      returning notification_id, type
    ),
    totals as (
      select notification_id,
             count(*) filter (where type = 'shown')::int as shown,
             count(*) filter (where type = 'clicked')::int as clicked
      from inserted group by notification_id
    ),
    updated as (
      update notifications n
      set shown = n.shown + t.shown, clicked = n.clicked + t.clicked
      from totals t where n.id = t.notification_id
      returning t.shown + t.clicked as counted
    )
    select coalesce(sum(counted), 0)::int as counted from updated`);
  return Number(rows[0]?.counted ?? 0);
}
