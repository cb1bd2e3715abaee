import type { Database } from '../../client.js';
import { releaseSlots } from '../subscriber-counters.js';
import { withSubscriptionsExpiredOutbox } from '../webhook-outbox.js';
import type { ChunkCounts, ChunkKey, Sql } from './shared.js';

export type AnswerKind = 'sent' | 'failed' | 'expired' | 'retry';

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
      select a.id from answers a where a.id <> all(c.answered_subscription_ids) order by a.id),
    answered_kinds = c.answered_kinds || coalesce((select string_agg(left(a.kind, 1), '' order by a.id)
      from answers a where a.id <> all(c.answered_subscription_ids)), '')`;
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
 * A chunk's counts per A/B variant (RETURNING of {@link completeChunk}): its answers by the letter
 * of their subscription, a target not answered (gone before it was sent to) counting as expired and
 * a retry counting in the next attempt's chunk. Null for a chunk without variants.
 */
const variantCounts = (sql: Sql) => sql`
  case when c.variants is null then null else (
    select jsonb_object_agg(v.letter, jsonb_build_object('sent', v.sent, 'failed', v.failed, 'expired', v.expired))
    from (
      select t.letter, count(*) filter (where a.kind = 'sent') as sent,
        count(*) filter (where a.kind = 'failed') as failed,
        count(*) filter (where a.kind = 'expired' or a.id is null) as expired
      from unnest(c.subscription_ids, string_to_array(c.variants, null)) as t(id, letter)
      left join answers a on a.id = t.id
      group by t.letter
    ) v
  ) end`;

/**
 * Completes a chunk: its progress rows and `last`, de-duplicated, are merged into its row, and the
 * progress rows are deleted. No row when the chunk was already completed. `failureDetails`: why
 * each failed subscription of this run failed, kept for the notification's report.
 */
export const completeChunk = (
  sql: Sql,
  chunk: ChunkKey,
  last: AnsweredBatch,
  failureDetails: Readonly<Record<string, string>> = {},
) => sql<
  (ChunkCounts & { retryIds: string[]; retryAfterMs: number; variantCounts: VariantCounts | null; sentIds: string[] })[]
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
    ${
      Object.keys(failureDetails).length === 0
        ? sql``
        : sql`, failure_details = coalesce(c.failure_details, '{}'::jsonb) || ${JSON.stringify(failureDetails)}::jsonb`
    }
  where c.notification_id = ${chunk.notificationId} and c.first_subscription_id = ${chunk.firstSubscriptionId}
    and c.attempt = ${chunk.attempt} and c.completed_at is null
  returning c.sent, c.failed, c.expired, c.retry_subscription_ids as "retryIds", c.retry_after_ms as "retryAfterMs",
    ${variantCounts(sql)} as "variantCounts",
    array(select a.id from answers a where a.kind = 'sent' order by a.id) as "sentIds"`;

/** Counts by variant letter: `{"B": {"sent": 3, "failed": 0, "expired": 1}}`. */
export type VariantCounts = Record<string, Record<string, number>>;

/**
 * Adds a push to the subscriptions' `recent_pushes` (newest first, the 100 newest kept), which the
 * frequency cap reads (chunk-start.ts). The rows are locked in id order first, so two chunks of
 * different sends completing at once over the same subscriptions wait for each other instead of
 * deadlocking.
 */
export async function recordPushes(sql: Sql, appId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`update subscriptions s set recent_pushes = (array[now()] || s.recent_pushes)[1:100]
    from (select id from subscriptions where app_id = ${appId} and id = any(${[...ids]}::uuid[])
      order by id for update) l
    where s.id = l.id`;
}

export interface ChunkRefusals {
  /** Subscriptions refused for a reason of their own (`refusedBySubscription`). */
  refused: string[];
  cleared: string[];
  retireAfter: number;
}

/**
 * Moves the subscriptions' refusal streaks: a sent push resets one, a refusal adds one, and a
 * subscription whose streak reaches `retireAfter` is retired exactly as an expired one is (status
 * `expired`, its `subscription.expired` webhook event and the counter's release in one statement).
 * Touches only the few subscriptions named: nothing is written for a push sent to one whose streak is 0.
 */
export async function recordRefusals(sql: Sql, appId: string, refusals: ChunkRefusals): Promise<number> {
  const { refused, cleared, retireAfter } = refusals;
  if (cleared.length > 0) {
    await sql`update subscriptions set refusals = 0
      where app_id = ${appId} and id = any(${cleared}::uuid[]) and refusals > 0`;
  }
  if (refused.length === 0) return 0;
  await sql`update subscriptions set refusals = least(refusals + 1, 32767)
    where app_id = ${appId} and status = 'active' and id = any(${refused}::uuid[])`;
  if (retireAfter <= 0) return 0;
  const [retired] = await withSubscriptionsExpiredOutbox(
    sql,
    sql`update subscriptions set status = 'expired', expired_at = now(), updated_at = now()
      where app_id = ${appId} and status = 'active' and id = any(${refused}::uuid[]) and refusals >= ${retireAfter}
      returning id, app_id, endpoint, uid, expired_at`,
    releaseSlots(sql, appId, sql`select count(*) from expired`),
  );
  return Number((retired as { count?: unknown } | undefined)?.count ?? 0);
}
