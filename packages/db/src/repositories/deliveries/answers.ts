import type { Database } from '../../client.js';
import { releaseSlots } from '../subscriber-counters.js';
import { withSubscriptionsExpiredOutbox } from '../webhook-outbox.js';
import type { ChunkCounts, ChunkKey, Sql } from './shared.js';

/** Outcome codes of answered pushes, as stored by {@link recordChunkProgress}. */
export type AnswerKind = 'sent' | 'failed' | 'expired' | 'retry';

/** Pushes answered since the last flush: parallel arrays, one entry per push. */
export interface AnsweredBatch {
  ids: string[];
  kinds: AnswerKind[];
  /** The longest Retry-After among the `retry` answers, in ms (0: none given). */
  retryAfterMs: number;
}

export const emptyAnsweredBatch = (): AnsweredBatch => ({ ids: [], kinds: [], retryAfterMs: 0 });

/**
 * SET clauses merging the `answers` CTE of {@link completeChunk} into a chunk row. Answers for a
 * subscription already in the row (written by a version that merged progress into it) are ignored,
 * so the counts stay exact; the right-hand sides see the row as it is after any concurrent update
 * (READ COMMITTED re-evaluates them on the newest version).
 */
export const mergeAnswers = (sql: Database['$client']) => {
  const fresh = (kind: AnswerKind) =>
    sql`(select count(*)::int from answers a where a.kind = ${kind} and a.id <> all(c.answered_subscription_ids))`;
  return sql`
    sent = c.sent + ${fresh('sent')},
    failed = c.failed + ${fresh('failed')},
    expired = c.expired + ${fresh('expired')},
    retry_subscription_ids = c.retry_subscription_ids || array(
      select a.id from answers a where a.kind = 'retry' and a.id <> all(c.answered_subscription_ids)),
    retry_after_ms = greatest(c.retry_after_ms, (select max(a.retry_after_ms) from answers a)),
    answered_subscription_ids = c.answered_subscription_ids || array(
      select a.id from answers a where a.id <> all(c.answered_subscription_ids))`;
};

/**
 * Subscriptions the push service answered 404/410 for become expired; the rest of the app is
 * untouched, and the owner's subscriber counter goes down by as many. The only place the worker
 * expires subscriptions; the `subscription.expired` webhook event of each one and the counter's
 * release are written by the same statement.
 */
export async function expireSubscriptions(sql: Sql, appId: string, batch: AnsweredBatch): Promise<void> {
  const ids = batch.ids.filter((_, index) => batch.kinds[index] === 'expired');
  if (ids.length === 0) return;
  await withSubscriptionsExpiredOutbox(
    sql,
    sql`update subscriptions set status = 'expired', expired_at = now(), updated_at = now()
      where app_id = ${appId} and status = 'active' and id = any(${ids}::uuid[])
      returning id, app_id, endpoint, uid, expired_at`,
    // The owner's subscriber counter gives back exactly the slots this statement took out of `active`.
    releaseSlots(sql, appId, sql`select count(*) from expired`),
  );
}

/**
 * Completes a chunk: its progress rows and `last` (the answers not written yet), de-duplicated
 * (two runs of one chunk may both have recorded a subscription), are merged into its row, which is
 * marked completed, and the progress rows are deleted. No row when the chunk was already completed.
 */
export const completeChunk = (sql: Sql, chunk: ChunkKey, last: AnsweredBatch) => sql<
  (ChunkCounts & { retryIds: string[]; retryAfterMs: number })[]
>`
  with progress as (
    delete from notification_chunk_answers p
    where p.notification_id = ${chunk.notificationId} and p.first_subscription_id = ${chunk.firstSubscriptionId}
      and p.attempt = ${chunk.attempt}
    returning p.subscription_ids, p.kinds, p.retry_after_ms
  ), answers as materialized (
    select distinct on (r.id) r.id, r.kind, r.retry_after_ms from (
      select a.id, a.kind, ${last.retryAfterMs}::int as retry_after_ms
      from unnest(${last.ids}::uuid[], ${last.kinds}::text[]) as a(id, kind)
      union all
      select a.id, a.kind, p.retry_after_ms from progress p, unnest(p.subscription_ids, p.kinds) as a(id, kind)
    ) r
  )
  update notification_chunks c set ${mergeAnswers(sql)}, completed_at = now()
  where c.notification_id = ${chunk.notificationId} and c.first_subscription_id = ${chunk.firstSubscriptionId}
    and c.attempt = ${chunk.attempt} and c.completed_at is null
  returning c.sent, c.failed, c.expired, c.retry_subscription_ids as "retryIds", c.retry_after_ms as "retryAfterMs"`;
