import type { Database } from '../../client.js';
import {
  type AnsweredBatch,
  type ChunkRefusals,
  completeChunk,
  expireSubscriptions,
  recordPushes,
  recordRefusals,
} from './answers.js';
import {
  addFailureReasons,
  addToCounters,
  type ChunkCounts,
  type ChunkKey,
  type DeliveryChunk,
  inTransaction,
  type Sql,
} from './shared.js';

/**
 * Records a chunk's outcome exactly once, in one transaction: a re-run that finds the chunk
 * already counted changes nothing. `vanished` targets (gone before they were sent to) count as
 * expired; a retried push is neither sent nor failed yet: the retry chunk counts it.
 */
export async function recordChunkOutcome(
  db: Database,
  chunk: ChunkKey & { appId: string },
  last: AnsweredBatch,
  vanished: number,
  retryNotBefore: (retryAfterMs: number) => Date,
  /**
   * This run's failed pushes per reason (`403 BadJwtToken`), added to the notification's
   * `failure_reasons`. Failures an earlier, crashed run of the chunk answered count in `failed` only.
   */
  failureReasons: Readonly<Record<string, number>> = {},
  /** This run's refusals and resets of refusal streaks; written only by the run that claims the chunk. */
  refusals: ChunkRefusals | null = null,
  /** Why each of this run's failed pushes failed, by subscription id (the notification's report). */
  failureDetails: Readonly<Record<string, string>> = {},
  /** Targets the app's frequency cap held back in this run: counted as `skipped`. */
  skipped = 0,
): Promise<{ recorded: boolean; counts: ChunkCounts | null; retryChunk: DeliveryChunk | null }> {
  return db.$client.begin(async (transaction) => {
    const sql = inTransaction(transaction);
    const [claimed] = await completeChunk(sql, chunk, last, failureDetails);
    if (!claimed) return { recorded: false, counts: null, retryChunk: null };
    await expireSubscriptions(sql, chunk.appId, last);
    if (refusals) await recordRefusals(sql, chunk.appId, refusals);
    await recordPushes(sql, chunk.appId, claimed.sentIds);
    const counts: ChunkCounts = {
      sent: claimed.sent,
      failed: claimed.failed,
      expired: claimed.expired + vanished,
      skipped,
    };
    if (vanished > 0) {
      await sql`update notification_chunks set expired = ${counts.expired}
        where notification_id = ${chunk.notificationId} and first_subscription_id = ${chunk.firstSubscriptionId}
          and attempt = ${chunk.attempt}`;
    }

    let retryChunk: DeliveryChunk | null = null;
    const retryIds = [...claimed.retryIds].sort();
    const first = retryIds[0];
    const lastId = retryIds[retryIds.length - 1];
    if (first !== undefined && lastId !== undefined) {
      retryChunk = {
        notificationId: chunk.notificationId,
        appId: chunk.appId,
        firstSubscriptionId: first,
        attempt: chunk.attempt + 1,
        subscriptionIds: retryIds,
        notBefore: retryNotBefore(claimed.retryAfterMs),
      };
      // The notification's app and creation time (the partition key) come from the chunk retried.
      await sql`insert into notification_chunks
          (notification_id, app_id, notification_created_at, first_subscription_id, attempt, subscription_ids,
            last_subscription_id, not_before, variants)
        select ${chunk.notificationId}, c.app_id, c.notification_created_at, ${first}, ${retryChunk.attempt},
          ${retryIds}::uuid[], ${lastId}, ${retryChunk.notBefore.toISOString()}::timestamptz,
          ${claimed.variantCounts === null ? null : retryLetters(sql, chunk, retryIds)}
        from notification_chunks c
        where c.notification_id = ${chunk.notificationId} and c.first_subscription_id = ${chunk.firstSubscriptionId}
          and c.attempt = ${chunk.attempt}
        on conflict do nothing`;
    }

    const reasons = Object.keys(failureReasons).length === 0 ? sql`` : addFailureReasons(sql, failureReasons);
    const variants =
      claimed.variantCounts === null
        ? sql``
        : sql`variant_stats = add_variant_counts(n.variant_stats, ${JSON.stringify(claimed.variantCounts)}::jsonb),`;
    await addToCounters(sql, chunk.notificationId, counts, sql`${reasons} ${variants}`);
    return { recorded: true, counts, retryChunk };
  }) as Promise<{ recorded: boolean; counts: ChunkCounts | null; retryChunk: DeliveryChunk | null }>;
}

/** The letters of `retryIds` (sorted) in the chunk they are retried from: a retry keeps its variant. */
const retryLetters = (sql: Sql, chunk: ChunkKey, retryIds: readonly string[]) => sql`(
  select string_agg(t.letter, '' order by t.id)
  from notification_chunks o, unnest(o.subscription_ids, string_to_array(o.variants, null)) as t(id, letter)
  where o.notification_id = ${chunk.notificationId} and o.first_subscription_id = ${chunk.firstSubscriptionId}
    and o.attempt = ${chunk.attempt} and t.id = any(${retryIds as string[]}::uuid[]))`;

/**
 * The retry chunk that completing `chunk` planned, while it is not counted yet; null when it
 * planned none. For a run whose outcome transaction committed but whose answer was lost (PostgreSQL
 * went away): its next try finds the chunk counted, and still has to queue the retry.
 */
export async function plannedRetryChunk(
  db: Database,
  chunk: ChunkKey & { appId: string },
): Promise<DeliveryChunk | null> {
  const [row] = await db.$client<
    { first_subscription_id: string; subscription_ids: string[]; not_before: Date | string }[]
  >`
    select r.first_subscription_id, r.subscription_ids, r.not_before
    from notification_chunks c
    join notification_chunks r on r.notification_id = c.notification_id and r.attempt = c.attempt + 1
      and r.first_subscription_id = (select id from unnest(c.retry_subscription_ids) id order by id limit 1)
    where c.notification_id = ${chunk.notificationId} and c.first_subscription_id = ${chunk.firstSubscriptionId}
      and c.attempt = ${chunk.attempt} and c.completed_at is not null and r.completed_at is null`;
  if (!row) return null;
  return {
    notificationId: chunk.notificationId,
    appId: chunk.appId,
    firstSubscriptionId: row.first_subscription_id,
    attempt: chunk.attempt + 1,
    subscriptionIds: row.subscription_ids,
    // This client hands timestamps back as text.
    notBefore: new Date(row.not_before),
  };
}
