import { randomUUID } from 'node:crypto';
import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';
import { isUuid } from '../ids.js';
import {
  type NotificationPayload,
  type NotificationTargetKind,
  notifications,
  type SubscriptionStatus,
  type SubscriptionTags,
  subscriptions,
  type Urgency,
} from '../schema.js';
import { countAudience, type StoredAudience } from './audiences.js';
import { beforePosition, cursorTimestamp, type KeysetPosition, type Page, toPage } from './pagination.js';
import { reserveMonthlySends } from './usage.js';
import { recordNotificationFinished } from './webhook-outbox.js';

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

/** `R` is the 202 body: stored for an idempotency key and replayed as it was first given. */
export type AcceptResult<R> =
  | { kind: 'accepted'; notification: Notification; response: R }
  | { kind: 'replay'; response: R }
  | { kind: 'limit' };

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

class IdempotencyRace extends Error {}

/**
 * Accepts a notification for `appId` (owned by `ownerId`) in one transaction: counts its targets,
 * reserves them in the owner's monthly usage (refused whole when that would pass `sendsPerMonth`),
 * and inserts the row. Nothing is queued here: the caller queues the fan-out after this commits,
 * and the reconciler covers a crash in between. A notification without targets is completed at once.
 * A scheduled one (`sendAt`) is only stored: targets are counted and reserved when it starts.
 *
 * With an idempotency key, a request that raced another with the same key loses at the unique
 * index, rolls back its reservation, and replays the winner's answer.
 */
export async function acceptNotification<R extends Record<string, unknown>>(
  db: Database,
  ownerId: string,
  appId: string,
  input: NewNotification,
  sendsPerMonth: number | null,
  respond: (accepted: { id: string; targets: number }) => R,
): Promise<AcceptResult<R>> {
  const { idempotencyKey } = input;
  try {
    return await db.transaction(async (tx): Promise<AcceptResult<R>> => {
      if (idempotencyKey !== null) {
        // A key older than the window is free again: release it so the unique index lets it be reused.
        await tx
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

      const audience = storedAudience(input.target);
      const scheduled = input.sendAt !== null;
      const targets = scheduled ? 0 : await countTargets(tx, appId, audience);
      if (targets > 0 && !(await reserveMonthlySends(tx, ownerId, targets, sendsPerMonth))) return { kind: 'limit' };

      const id = randomUUID();
      const response = respond({ id, targets });
      const done = targets === 0 && !scheduled ? sql`now()` : null;
      const [inserted] = await tx
        .insert(notifications)
        .values({
          id,
          appId,
          payload: input.payload,
          ttl: input.ttl,
          urgency: input.urgency,
          topic: input.topic,
          ...audience,
          sendAt: input.sendAt,
          status: scheduled ? 'scheduled' : targets === 0 ? 'completed' : 'queued',
          targets,
          idempotencyKey,
          acceptedResponse: idempotencyKey === null ? null : response,
          fannedOutAt: done,
          completedAt: done,
        })
        .onConflictDoNothing({ target: [notifications.appId, notifications.idempotencyKey] })
        .returning();
      if (!inserted) throw new IdempotencyRace();
      // No target: the notification is finished at acceptance, and says so to the webhook too.
      if (inserted.status === 'completed') await recordNotificationFinished(tx, inserted.id);
      return { kind: 'accepted', notification: inserted, response };
    });
  } catch (error) {
    if (!(error instanceof IdempotencyRace) || idempotencyKey === null) throw error;
    const response = await findIdempotentResponse(db, appId, idempotencyKey);
    if (!response) throw new Error('idempotency key conflicted, but no earlier answer was found');
    // The stored body is the one `respond` built for the first request with this key.
    return { kind: 'replay', response: response as R };
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
