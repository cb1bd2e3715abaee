import { randomUUID } from 'node:crypto';
import { and, count, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';
import { isUuid } from '../ids.js';
import {
  type NotificationPayload,
  type NotificationTargetKind,
  notifications,
  type SubscriptionStatus,
  subscriptions,
  type Urgency,
} from '../schema.js';
import { reserveMonthlySends } from './usage.js';

export type Notification = typeof notifications.$inferSelect;

/** How long an `Idempotency-Key` holds (CONTRACT "Sending"). */
const IDEMPOTENCY_WINDOW = sql`interval '24 hours'`;

export type NotificationTarget =
  | { kind: 'all' }
  | { kind: Exclude<NotificationTargetKind, 'all'>; subscriptionIds: readonly string[] };

export interface NewNotification {
  payload: NotificationPayload;
  ttl: number;
  urgency: Urgency;
  topic: string | null;
  target: NotificationTarget;
  idempotencyKey: string | null;
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

      const targets =
        input.target.kind === 'all'
          ? await countActiveSubscribers(tx, appId)
          : new Set(input.target.subscriptionIds).size;
      if (targets > 0 && !(await reserveMonthlySends(tx, ownerId, targets, sendsPerMonth))) return { kind: 'limit' };

      const id = randomUUID();
      const response = respond({ id, targets });
      const done = targets === 0 ? sql`now()` : null;
      const [inserted] = await tx
        .insert(notifications)
        .values({
          id,
          appId,
          payload: input.payload,
          ttl: input.ttl,
          urgency: input.urgency,
          topic: input.topic,
          targetKind: input.target.kind,
          subscriptionIds: input.target.kind === 'all' ? null : [...new Set(input.target.subscriptionIds)],
          status: targets === 0 ? 'completed' : 'queued',
          targets,
          idempotencyKey,
          acceptedResponse: idempotencyKey === null ? null : response,
          fannedOutAt: done,
          completedAt: done,
        })
        .onConflictDoNothing({ target: [notifications.appId, notifications.idempotencyKey] })
        .returning();
      if (!inserted) throw new IdempotencyRace();
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

async function countActiveSubscribers(tx: Transaction, appId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(subscriptions)
    .where(and(eq(subscriptions.appId, appId), eq(subscriptions.status, 'active')));
  return row?.n ?? 0;
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
