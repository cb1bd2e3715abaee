import { and, asc, eq, gt, inArray, isNull, lte, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { apps, notificationChunks, notifications, subscriptions } from '../schema.js';
import type { Notification } from './notifications.js';
import { recordNotificationFinished, recordSubscriptionsExpired } from './webhook-outbox.js';

/**
 * The worker's side of a notification: planning its delivery chunks, recording what each chunk
 * achieved, and finding notifications that stopped moving. These run for whichever app a queued
 * job names; the job carries ids the API wrote, never customer input.
 */

export interface ChunkKey {
  notificationId: string;
  firstSubscriptionId: string;
  attempt: number;
}

export interface DeliveryChunk extends ChunkKey {
  appId: string;
  /** Sorted ascending. */
  subscriptionIds: string[];
  /** Not to be sent before this instant (Retry-After / backoff of a retry chunk). */
  notBefore: Date;
}

export interface ChunkCounts {
  sent: number;
  failed: number;
  expired: number;
}

/**
 * Counter update of a notification that also finishes it, atomically, once
 * `sent + failed + expired` reaches `targets`: `completed`, or `failed` when nothing was sent.
 * The right-hand sides read the row's values before this update.
 */
function addToCounters({ sent, failed, expired }: ChunkCounts) {
  const finished = sql`${notifications.sent} + ${notifications.failed} + ${notifications.expired} + ${sent + failed + expired} >= ${notifications.targets}`;
  return {
    sent: sql`${notifications.sent} + ${sent}`,
    failed: sql`${notifications.failed} + ${failed}`,
    expired: sql`${notifications.expired} + ${expired}`,
    status: sql`case when ${finished} then (case when ${notifications.sent} + ${sent} > 0 then 'completed' else 'failed' end) else ${notifications.status} end`,
    completedAt: sql`case when ${finished} then coalesce(${notifications.completedAt}, now()) else ${notifications.completedAt} end`,
    updatedAt: sql`now()`,
  } satisfies Record<string, SQL>;
}

const isUnfinished = sql`${notifications.status} in ('queued', 'sending')`;

/** Moves a notification to `sending` and marks progress; null when it is gone or already finished. */
export async function beginFanOut(db: Database, notificationId: string): Promise<Notification | null> {
  const [row] = await db
    .update(notifications)
    .set({ status: 'sending', updatedAt: sql`now()` })
    .where(and(eq(notifications.id, notificationId), isUnfinished))
    .returning();
  return row ?? null;
}

const toChunk = (appId: string, row: typeof notificationChunks.$inferSelect): DeliveryChunk => ({
  notificationId: row.notificationId,
  appId,
  firstSubscriptionId: row.firstSubscriptionId,
  attempt: row.attempt,
  subscriptionIds: row.subscriptionIds,
  notBefore: row.notBefore,
});

/** Chunks planned but not yet counted: what must be (re-)queued after a crash or a Redis flush. */
export async function pendingChunks(db: Database, notification: Notification): Promise<DeliveryChunk[]> {
  const rows = await db
    .select()
    .from(notificationChunks)
    .where(and(eq(notificationChunks.notificationId, notification.id), isNull(notificationChunks.completedAt)))
    .orderBy(asc(notificationChunks.attempt), asc(notificationChunks.firstSubscriptionId));
  return rows.map((row) => toChunk(notification.appId, row));
}

export interface PlanOptions {
  chunkSize: number;
  /** Chunks planned per call (one transaction), so delivery starts before a huge plan is complete. */
  maxChunks: number;
}

/**
 * Plans the next chunks of a notification's targets, keyset-paginated by subscription id from
 * where the stored plan ends, so a re-run continues instead of starting over and chunk boundaries
 * never move. The notification row is locked, so two fan-outs of one notification take turns.
 *
 * `all` targets are the app's active subscribers that existed at acceptance, capped at `targets`
 * (what was reserved). Subscribers that went away before the fan-out reached them leave a
 * shortfall, counted as `expired` when the plan is complete, so `sent + failed + expired` still
 * reaches `targets`.
 */
export async function planDeliveryChunks(
  db: Database,
  notificationId: string,
  options: PlanOptions,
): Promise<{ chunks: DeliveryChunk[]; done: boolean }> {
  return db.transaction(async (tx) => {
    const [notification] = await tx
      .select()
      .from(notifications)
      .where(and(eq(notifications.id, notificationId), isUnfinished))
      .for('update');
    if (!notification || notification.fannedOutAt !== null) return { chunks: [], done: true };

    let cursor = notification.planCursor;
    let remaining = notification.targets - notification.planned;
    // PostgreSQL orders uuids bytewise, which is the order of their lower-case hex text.
    const fixedTargets = notification.subscriptionIds ? [...notification.subscriptionIds].sort() : null;
    const chunks: DeliveryChunk[] = [];
    let exhausted = false;

    while (chunks.length < options.maxChunks && remaining > 0) {
      const size = Math.min(options.chunkSize, remaining);
      const after = cursor;
      const ids = fixedTargets
        ? fixedTargets.filter((id) => after === null || id > after).slice(0, size)
        : (
            await tx
              .select({ id: subscriptions.id })
              .from(subscriptions)
              .where(
                and(
                  eq(subscriptions.appId, notification.appId),
                  eq(subscriptions.status, 'active'),
                  lte(subscriptions.createdAt, notification.createdAt),
                  after === null ? undefined : gt(subscriptions.id, after),
                ),
              )
              .orderBy(asc(subscriptions.id))
              .limit(size)
          ).map((row) => row.id);
      const first = ids[0];
      const lastId = ids[ids.length - 1];
      if (first === undefined || lastId === undefined) {
        exhausted = true;
        break;
      }
      chunks.push({
        notificationId,
        appId: notification.appId,
        firstSubscriptionId: first,
        attempt: 1,
        subscriptionIds: ids,
        notBefore: new Date(),
      });
      cursor = lastId;
      remaining -= ids.length;
      if (ids.length < size) {
        exhausted = true;
        break;
      }
    }

    if (chunks.length > 0) {
      await tx.insert(notificationChunks).values(
        chunks.map((chunk) => ({
          notificationId,
          firstSubscriptionId: chunk.firstSubscriptionId,
          attempt: 1,
          subscriptionIds: chunk.subscriptionIds,
          lastSubscriptionId: chunk.subscriptionIds[chunk.subscriptionIds.length - 1] ?? chunk.firstSubscriptionId,
        })),
      );
    }
    const done = exhausted || remaining === 0;
    const progress = { planned: notification.targets - remaining, planCursor: cursor };
    await tx
      .update(notifications)
      .set(
        done
          ? { ...progress, fannedOutAt: sql`now()`, ...addToCounters({ sent: 0, failed: 0, expired: remaining }) }
          : { ...progress, updatedAt: sql`now()` },
      )
      .where(eq(notifications.id, notificationId));
    if (done) await recordNotificationFinished(tx, notificationId);
    return { chunks, done };
  });
}

export interface DeliveryContext {
  notification: Pick<Notification, 'id' | 'appId' | 'payload' | 'ttl' | 'urgency' | 'topic' | 'status'>;
  app: { id: string; vapidPublicKey: string; vapidPrivateKeySealed: string };
}

/** The notification with its app's VAPID keys; null when it is gone (its app was deleted). */
export async function loadDeliveryContext(db: Database, notificationId: string): Promise<DeliveryContext | null> {
  const [row] = await db
    .select({
      notification: {
        id: notifications.id,
        appId: notifications.appId,
        payload: notifications.payload,
        ttl: notifications.ttl,
        urgency: notifications.urgency,
        topic: notifications.topic,
        status: notifications.status,
      },
      app: { id: apps.id, vapidPublicKey: apps.vapidPublicKey, vapidPrivateKeySealed: apps.vapidPrivateKeySealed },
    })
    .from(notifications)
    .innerJoin(apps, eq(apps.id, notifications.appId))
    .where(eq(notifications.id, notificationId))
    .limit(1);
  return row ?? null;
}

const chunkWhere = (key: ChunkKey) =>
  and(
    eq(notificationChunks.notificationId, key.notificationId),
    eq(notificationChunks.firstSubscriptionId, key.firstSubscriptionId),
    eq(notificationChunks.attempt, key.attempt),
  );

/** True when the chunk's outcome is already counted (or the chunk no longer exists). */
export async function isChunkSettled(db: Database, key: ChunkKey): Promise<boolean> {
  const [row] = await db
    .select({ completedAt: notificationChunks.completedAt })
    .from(notificationChunks)
    .where(chunkWhere(key))
    .limit(1);
  return !row || row.completedAt !== null;
}

export interface DeliverableSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** The still-active subscriptions of `appId` among `ids`; the rest expired or were removed. */
export async function deliverableSubscriptions(
  db: Database,
  appId: string,
  ids: readonly string[],
): Promise<DeliverableSubscription[]> {
  if (ids.length === 0) return [];
  return db
    .select({
      id: subscriptions.id,
      endpoint: subscriptions.endpoint,
      p256dh: subscriptions.p256dh,
      auth: subscriptions.auth,
    })
    .from(subscriptions)
    .where(
      and(eq(subscriptions.appId, appId), eq(subscriptions.status, 'active'), inArray(subscriptions.id, [...ids])),
    );
}

export interface ChunkOutcome extends ChunkCounts {
  /** Subscriptions the push service answered 404/410 for: they become expired. */
  expiredSubscriptionIds: readonly string[];
  /** Pushes to send again later as the next attempt (429, 5xx, network). */
  retry: { subscriptionIds: readonly string[]; notBefore: Date } | null;
}

/**
 * Records a chunk's outcome exactly once, in one transaction: claims the chunk (a re-run that
 * finds it already counted changes nothing), expires the gone subscriptions in one UPDATE, plans
 * the retry chunk, and adds the counts to the notification in one UPDATE that also completes it.
 */
export async function recordChunkOutcome(
  db: Database,
  chunk: ChunkKey & { appId: string },
  outcome: ChunkOutcome,
): Promise<{ recorded: boolean; retryChunk: DeliveryChunk | null }> {
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(notificationChunks)
      .set({ sent: outcome.sent, failed: outcome.failed, expired: outcome.expired, completedAt: sql`now()` })
      .where(and(chunkWhere(chunk), isNull(notificationChunks.completedAt)))
      .returning({ notificationId: notificationChunks.notificationId });
    if (!claimed) return { recorded: false, retryChunk: null };

    if (outcome.expiredSubscriptionIds.length > 0) {
      const expired = await tx
        .update(subscriptions)
        .set({ status: 'expired', expiredAt: sql`now()`, updatedAt: sql`now()` })
        .where(
          and(
            eq(subscriptions.appId, chunk.appId),
            eq(subscriptions.status, 'active'),
            inArray(subscriptions.id, [...outcome.expiredSubscriptionIds]),
          ),
        )
        .returning({ id: subscriptions.id });
      await recordSubscriptionsExpired(
        tx,
        chunk.appId,
        expired.map((row) => row.id),
      );
    }

    let retryChunk: DeliveryChunk | null = null;
    const retryIds = [...(outcome.retry?.subscriptionIds ?? [])].sort();
    const first = retryIds[0];
    const last = retryIds[retryIds.length - 1];
    if (outcome.retry && first !== undefined && last !== undefined) {
      retryChunk = {
        notificationId: chunk.notificationId,
        appId: chunk.appId,
        firstSubscriptionId: first,
        attempt: chunk.attempt + 1,
        subscriptionIds: retryIds,
        notBefore: outcome.retry.notBefore,
      };
      await tx
        .insert(notificationChunks)
        .values({
          notificationId: chunk.notificationId,
          firstSubscriptionId: first,
          attempt: retryChunk.attempt,
          subscriptionIds: retryIds,
          lastSubscriptionId: last,
          notBefore: outcome.retry.notBefore,
        })
        .onConflictDoNothing();
    }

    await tx.update(notifications).set(addToCounters(outcome)).where(eq(notifications.id, chunk.notificationId));
    await recordNotificationFinished(tx, chunk.notificationId);
    return { recorded: true, retryChunk };
  });
}

/** Unfinished notifications without progress for `staleSeconds`: candidates for re-queueing. */
export async function findStalledNotifications(db: Database, staleSeconds: number, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(isUnfinished, sql`${notifications.updatedAt} < now() - make_interval(secs => ${staleSeconds})`))
    .orderBy(asc(notifications.updatedAt))
    .limit(limit);
  return rows.map((row) => row.id);
}
