import { sql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database, Transaction } from '../client.js';

/**
 * Outbox writes: called inside the transaction that makes the change an event reports, so the
 * event exists exactly when the change does (a crash loses both or neither). Each write is
 * idempotent through `dedupe_key`, and writes nothing when the app's webhook does not subscribe to
 * that event (or there is none). The relay in the worker turns the rows into delivery jobs.
 */

type Executor = Database | Transaction;

/**
 * `notification.completed` / `notification.failed` for a notification that is finished now (the
 * caller has just moved it there in this transaction; a notification still running adds nothing).
 */
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

type Sql = postgres.Sql;

/**
 * The same write for raw postgres.js transactions, appended to the UPDATE that finishes the
 * notification (`update` must return `id, app_id, status, error_code`): one round trip instead of
 * two. A send stopped by its account's suspension reports nothing (no webhook afterwards).
 */
export const withNotificationFinishedOutbox = (sql: Sql, update: postgres.PendingQuery<postgres.Row[]>) => sql`
  with finished as (${update})
  insert into webhook_messages (app_id, type, subject_id, dedupe_key)
  select f.app_id, 'notification.' || f.status, f.id, 'notification.' || f.status || ':' || f.id
  from finished f
  join webhooks w on w.app_id = f.app_id
  where f.status in ('completed', 'failed') and ('notification.' || f.status) = any(w.events)
    and f.error_code is distinct from 'ACCOUNT_SUSPENDED'
  on conflict (dedupe_key) do nothing`;

/**
 * `subscription.expired`, appended to the UPDATE that expires subscriptions (`update` must return
 * `id, app_id, endpoint, uid, expired_at`). The subscriber is copied into the event now: it may be
 * deleted before the event goes out. `then`, when given, is the statement's main query, run once
 * after both (a SELECT that may read `expired`), such as the subscriber counter's release: a CTE
 * that is not data-modifying would run only if something read it.
 */
export const withSubscriptionsExpiredOutbox = (
  sql: Sql,
  update: postgres.PendingQuery<postgres.Row[]>,
  then?: postgres.PendingQuery<postgres.Row[]>,
) => sql`
  with expired as (${update}), outbox as (
    insert into webhook_messages (app_id, type, subject_id, dedupe_key, data)
    select e.app_id, 'subscription.expired', e.id,
      'subscription.expired:' || e.id || ':' || (extract(epoch from e.expired_at) * 1000000)::bigint,
      jsonb_build_object('subscriber', jsonb_build_object('id', e.id, 'endpoint', e.endpoint, 'uid', e.uid))
    from expired e
    join webhooks w on w.app_id = e.app_id
    where 'subscription.expired' = any(w.events)
    on conflict (dedupe_key) do nothing
  )
  ${then ?? sql`select count(*) from expired`}`;
