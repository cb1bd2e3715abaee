import { randomUUID } from 'node:crypto';
import { and, desc, eq, gte, inArray, type SQL, sql } from 'drizzle-orm';
import { type Database, executePrepared, type Transaction } from '../client.js';
import { isUuid } from '../ids.js';
import {
  type NotificationPayload,
  type NotificationStatus,
  type NotificationTargetKind,
  notifications,
  type SubscriptionStatus,
  type SubscriptionTags,
  subscriptions,
  type Urgency,
} from '../schema.js';
import { audienceCondition, countAudience, type StoredAudience } from './audiences.js';
import { beforePosition, cursorTimestamp, type KeysetPosition, type Page, toPage } from './pagination.js';
import { currentUsageMonth } from './usage.js';

export type Notification = typeof notifications.$inferSelect;

/** What the API shows of a notification: its progress and what was sent. */
export type NotificationSummary = Pick<
  Notification,
  | 'id'
  | 'status'
  | 'targets'
  | 'sent'
  | 'failed'
  | 'expired'
  | 'shown'
  | 'clicked'
  | 'payload'
  | 'createdAt'
  | 'completedAt'
  | 'sendAt'
  | 'errorCode'
>;

/** How long an `Idempotency-Key` holds (CONTRACT "Sending"). */
const IDEMPOTENCY_WINDOW = sql`interval '24 hours'`;

export type NotificationTarget =
  | { kind: 'all' }
  | { kind: 'endpoint' | 'batch'; subscriptionIds: readonly string[] }
  | { kind: 'uids'; uids: readonly string[] }
  | { kind: 'tags'; tags: SubscriptionTags };

/** How a target is stored on the notification row. */
export function storedAudience(
  target: NotificationTarget,
): StoredAudience & { subscriptionIds: string[] | null; targetUids: string[] | null } {
  return {
    targetKind: target.kind satisfies NotificationTargetKind,
    subscriptionIds: 'subscriptionIds' in target ? [...new Set(target.subscriptionIds)] : null,
    targetUids: target.kind === 'uids' ? [...new Set(target.uids)] : null,
    targetTags: target.kind === 'tags' ? target.tags : null,
  };
}

/**
 * Targets of a send at the moment it starts: the fixed ids (`endpoint`, `batch`) or the active
 * subscriptions of the audience (`all`, `uids`, `tags`), counted in the caller's transaction.
 */
export async function countTargets(
  tx: Transaction,
  appId: string,
  audience: StoredAudience & { subscriptionIds: readonly string[] | null },
): Promise<number> {
  return audience.subscriptionIds ? audience.subscriptionIds.length : countAudience(tx, appId, audience);
}

export interface NewNotification {
  payload: NotificationPayload;
  ttl: number;
  urgency: Urgency;
  topic: string | null;
  target: NotificationTarget;
  idempotencyKey: string | null;
  /** A scheduled send: nothing is counted or reserved now; the worker's scheduler starts it then. */
  sendAt: Date | null;
}

/** What every 202 body of a send carries: the accept statement writes `targets` into the stored copy. */
export interface AcceptedAnswer {
  notification: { targets: number };
}

/** `R` is the 202 body: stored for an idempotency key and replayed as it was first given. */
export type AcceptResult<R> =
  | { kind: 'accepted'; notification: AcceptedNotification; response: R }
  | { kind: 'replay'; response: R }
  | { kind: 'limit' };

/** The accepted row, as far as the caller needs it (status decides whether to queue the fan-out). */
export interface AcceptedNotification {
  id: string;
  status: NotificationStatus;
  targets: number;
}

export interface EndpointMatch {
  endpoint: string;
  id: string;
  status: SubscriptionStatus;
}

/** The app's subscriptions among `endpoints` (active or expired); endpoints not listed are unknown. */
export async function findSubscriptionsByEndpoints(
  db: Database,
  appId: string,
  endpoints: readonly string[],
): Promise<EndpointMatch[]> {
  if (endpoints.length === 0) return [];
  return db
    .select({ endpoint: subscriptions.endpoint, id: subscriptions.id, status: subscriptions.status })
    .from(subscriptions)
    .where(and(eq(subscriptions.appId, appId), inArray(subscriptions.endpoint, [...endpoints])));
}

/** The answer first given to `idempotencyKey` by this app within the last 24 h, if any. */
export async function findIdempotentResponse(
  db: Database,
  appId: string,
  idempotencyKey: string,
): Promise<Record<string, unknown> | null> {
  const [row] = await db
    .select({ response: notifications.acceptedResponse })
    .from(notifications)
    .where(
      and(
        eq(notifications.appId, appId),
        eq(notifications.idempotencyKey, idempotencyKey),
        sql`${notifications.createdAt} >= now() - ${IDEMPOTENCY_WINDOW}`,
      ),
    )
    .limit(1);
  return row?.response ?? null;
}

/** A key older than the window is free again: released, so the unique index lets it be reused. */
async function releaseStaleIdempotencyKey(db: Database, appId: string, idempotencyKey: string): Promise<void> {
  await db
    .update(notifications)
    .set({ idempotencyKey: null })
    .where(
      and(
        eq(notifications.appId, appId),
        eq(notifications.idempotencyKey, idempotencyKey),
        sql`${notifications.createdAt} < now() - ${IDEMPOTENCY_WINDOW}`,
      ),
    );
}

/** The unique index on (app_id, idempotency_key) refused the insert: the key is taken. */
function isIdempotencyConflict(error: unknown): boolean {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const { code, constraint_name: constraint } = cause as { code?: unknown; constraint_name?: unknown };
    if (code === '23505') return constraint === 'notifications_app_idempotency_key';
  }
  return false;
}

interface AcceptRow {
  /** True when the key was answered within the window: nothing was counted, reserved or inserted. */
  replayed: boolean;
  replay: Record<string, unknown> | null;
  /** Null when nothing was inserted: a replay, or the month's limit refused the reservation. */
  id: string | null;
  status: NotificationStatus | null;
  targets: number | null;
}

/**
 * The accept as ONE statement (one round trip, its own implicit transaction), instead of the five
 * it took in a transaction (begin, count, reserve, insert, commit):
 *
 * - `fresh`: the answer already given to the idempotency key within 24 h; when there is one, every
 *   step below selects nothing (the count is not even run) and the statement returns it.
 * - `counted`: the targets, counted now for `all`/`uids`/`tags`, fixed for `endpoint`/`batch`, 0
 *   for a scheduled send (counted and reserved when it starts).
 * - `reserved`: the same upsert as `reserveMonthlySends`: the conflicting `monthly_usage` row is
 *   locked and its `where` re-checked against the committed value, so concurrent accepts never
 *   take the month past its limit. No row returned: refused.
 * - `inserted`: the notification, only when nothing needed reserving or the reservation passed.
 *   Deliberately without ON CONFLICT: a concurrent request with the same key that committed after
 *   this statement's snapshot makes the insert fail (23505) and with it the whole statement, so the
 *   reservation is undone by PostgreSQL itself; the caller then replays the winner's answer.
 */
function acceptStatement(
  ownerId: string,
  appId: string,
  id: string,
  input: NewNotification,
  sendsPerMonth: number | null,
  template: AcceptedAnswer,
) {
  const key = input.idempotencyKey;
  const audience = storedAudience(input.target);
  const scheduled = input.sendAt !== null;
  const notReplay = key === null ? sql`true` : sql`not exists (select 1 from fresh)`;
  const fresh =
    key === null
      ? sql``
      : sql`fresh as (
          select accepted_response as response from notifications
          where app_id = ${appId}::uuid and idempotency_key = ${key}::text
            and created_at >= now() - ${IDEMPOTENCY_WINDOW}
          limit 1
        ),`;
  const condition = audienceCondition(audience);
  const targets = scheduled
    ? sql`0`
    : audience.subscriptionIds
      ? sql`${audience.subscriptionIds.length}::int`
      : sql`(select count(*)::int from ${subscriptions}
          where ${subscriptions.appId} = ${appId}::uuid and ${subscriptions.status} = 'active'
            ${condition ? sql`and ${condition}` : sql``})`;
  const withinLimit = (sends: SQL) => (sendsPerMonth === null ? sql`` : sql`and ${sends} <= ${sendsPerMonth}::bigint`);
  const done = scheduled ? sql`null::timestamptz` : sql`case when targets = 0 then now() end`;
  return sql`
    with ${fresh}
    counted as (select ${targets} as targets where ${notReplay}),
    reserved as (
      insert into monthly_usage (user_id, month, sends)
      select ${ownerId}::uuid, ${currentUsageMonth}, targets from counted
      where targets > 0 ${withinLimit(sql`targets`)}
      on conflict (user_id, month) do update set sends = monthly_usage.sends + excluded.sends
      where true ${withinLimit(sql`monthly_usage.sends + excluded.sends`)}
      returning 1
    ),
    inserted as (
      insert into notifications (id, app_id, payload, ttl, urgency, topic, target_kind, subscription_ids,
        target_uids, target_tags, send_at, status, targets, idempotency_key, accepted_response,
        fanned_out_at, completed_at)
      select ${id}::uuid, ${appId}::uuid, ${sql.param(input.payload, notifications.payload)}::jsonb,
        ${input.ttl}::int, ${input.urgency}::text, ${input.topic}::text, ${audience.targetKind}::text,
        ${sql.param(audience.subscriptionIds, notifications.subscriptionIds)}::uuid[],
        ${sql.param(audience.targetUids, notifications.targetUids)}::text[],
        ${sql.param(audience.targetTags, notifications.targetTags)}::jsonb,
        ${sql.param(input.sendAt, notifications.sendAt)}::timestamptz,
        ${scheduled ? sql`'scheduled'` : sql`case when targets = 0 then 'completed' else 'queued' end`},
        targets, ${key}::text,
        ${
          key === null
            ? sql`null::jsonb`
            : sql`jsonb_set(${sql.param(template, notifications.acceptedResponse)}::jsonb, '{notification,targets}', to_jsonb(targets))`
        },
        ${done}, ${done}
      from counted
      where targets = 0 or exists (select 1 from reserved)
      returning id, status, targets
    ),
    -- The webhook outbox (see webhook-outbox.ts): a send without targets is finished here, so its
    -- notification.completed event is written by this same statement.
    finished_event as (
      insert into webhook_messages (app_id, type, subject_id, dedupe_key)
      select ${appId}::uuid, 'notification.completed', inserted.id, 'notification.completed:' || inserted.id
      from inserted join webhooks w on w.app_id = ${appId}::uuid
      where inserted.status = 'completed' and 'notification.completed' = any(w.events)
      on conflict (dedupe_key) do nothing
    )
    select ${key === null ? sql`false` : sql`exists (select 1 from fresh)`} as replayed,
      ${key === null ? sql`null::jsonb` : sql`(select response from fresh)`} as replay,
      inserted.id, inserted.status, inserted.targets
    from (select 1) as one left join inserted on true`;
}

/**
 * Accepts a notification for `appId` (owned by `ownerId`) in one statement (see `acceptStatement`):
 * replays the answer already given to its idempotency key, or counts its targets, reserves them in
 * the owner's monthly usage (refused whole when that would pass `sendsPerMonth`) and inserts the
 * row, atomically. Nothing is queued here: the caller queues the fan-out after this commits, and the
 * reconciler covers a crash in between. A notification without targets is completed at once. A
 * scheduled one (`sendAt`) is only stored: targets are counted and reserved when it starts.
 *
 * `respond` builds the 202 body; it must put `targets` at `notification.targets`, where the
 * statement writes the counted value into the stored copy (the count is only known in SQL).
 *
 * With an idempotency key, a request that raced another with the same key fails at the unique
 * index, which rolls back its reservation, and replays the winner's answer. A key still held by a
 * notification older than the window is released and the accept tried again (off the hot path).
 */
export async function acceptNotification<R extends Record<string, unknown> & AcceptedAnswer>(
  db: Database,
  ownerId: string,
  appId: string,
  input: NewNotification,
  sendsPerMonth: number | null,
  respond: (accepted: { id: string; targets: number }) => R,
): Promise<AcceptResult<R>> {
  const { idempotencyKey } = input;
  const id = randomUUID();
  const statement = acceptStatement(ownerId, appId, id, input, sendsPerMonth, respond({ id, targets: 0 }));
  // Prepared (one round trip instead of describe + execute, and no re-parse of the CTE), except for
  // a `uids` send: its `inArray` gives the text one parameter per uid, an unbounded set of shapes.
  const run = () =>
    input.target.kind === 'uids'
      ? db.execute<AcceptRow & Record<string, unknown>>(statement)
      : executePrepared<AcceptRow & Record<string, unknown>>(db, statement);
  for (let attempt = 1; ; attempt++) {
    try {
      const [row] = await run();
      if (!row) throw new Error('the accept statement returned no row');
      if (row.replayed) {
        if (!row.replay) throw new Error('idempotency key found, but no earlier answer was stored');
        // The stored body is the one `respond` built for the first request with this key.
        return { kind: 'replay', response: row.replay as R };
      }
      if (row.id === null || row.status === null || row.targets === null) return { kind: 'limit' };
      const notification = { id: row.id, status: row.status, targets: row.targets };
      return { kind: 'accepted', notification, response: respond({ id, targets: row.targets }) };
    } catch (error) {
      if (idempotencyKey === null || !isIdempotencyConflict(error) || attempt >= 3) throw error;
      const response = await findIdempotentResponse(db, appId, idempotencyKey);
      if (response) return { kind: 'replay', response: response as R };
      await releaseStaleIdempotencyKey(db, appId, idempotencyKey);
    }
  }
}

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

/** Sends accepted for one app this calendar month (UTC): the sum of its notifications' targets. */
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
  shown: notifications.shown,
  clicked: notifications.clicked,
  payload: notifications.payload,
  createdAt: notifications.createdAt,
  completedAt: notifications.completedAt,
  sendAt: notifications.sendAt,
  errorCode: notifications.errorCode,
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

/**
 * One page of the app's notifications, newest first. Served by `notifications_app_created_idx`
 * (app_id, created_at desc, id desc): with 5,000 rows in the app, page 50 is an Index Scan on it
 * with the row comparison as an index condition and a Limit on top, no Sort and no Seq Scan.
 */
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
  /** `YYYY-MM-DD`, UTC. */
  date: string;
  sends: number;
}

/**
 * The app's sends (targets of the notifications it had accepted) per UTC day over the last `days`
 * days including today, oldest first, with a 0 for every day without any.
 */
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
