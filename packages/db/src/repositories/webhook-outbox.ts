import { sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';

/**
 * Outbox writes: called inside the transaction that makes the change an event reports, so the
 * event exists exactly when the change does (a crash loses both or neither). Each write is
 * idempotent through `dedupe_key`, and writes nothing when the app has no webhook for that event.
 */

type Executor = Database | Transaction;

/** `notification.completed` / `notification.failed` for a notification that has just finished. */
export async function recordNotificationFinished(tx: Executor, notificationId: string): Promise<void> {
  await tx.execute(sql`
    insert into webhook_messages (app_id, type, subject_id, dedupe_key)
    select n.app_id, 'notification.' || n.status, n.id, 'notification.' || n.status || ':' || n.id
    from notifications n
    join webhooks w on w.app_id = n.app_id
    where n.id = ${notificationId}
      and n.status in ('completed', 'failed')
      and ('notification.' || n.status) = any(w.events)
    on conflict (dedupe_key) do nothing`);
}

/** `subscription.expired` for subscriptions of `appId` that have just expired. */
export async function recordSubscriptionsExpired(
  tx: Executor,
  appId: string,
  subscriptionIds: readonly string[],
): Promise<void> {
  if (subscriptionIds.length === 0) return;
  await tx.execute(sql`
    insert into webhook_messages (app_id, type, subject_id, dedupe_key)
    select s.app_id, 'subscription.expired', s.id,
           'subscription.expired:' || s.id || ':' || extract(epoch from s.expired_at)::text
    from subscriptions s
    join webhooks w on w.app_id = s.app_id
    where s.app_id = ${appId}
      and s.id in (${sql.join(
        subscriptionIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})
      and s.status = 'expired'
      and 'subscription.expired' = any(w.events)
    on conflict (dedupe_key) do nothing`);
}
