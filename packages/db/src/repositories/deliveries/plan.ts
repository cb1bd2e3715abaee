import type { Database } from '../../client.js';
import type { NotificationTargetKind, SegmentExpression, SubscriptionTags } from '../../schema.js';
import { audienceFilter } from '../audiences.js';
import type { Notification } from '../notifications/index.js';
import { inLocalGroup } from './local-groups.js';
import { addToCounters, type ChunkKey, type DeliveryChunk, inTransaction, type Sql } from './shared.js';
import {
  letterExpression,
  newSampleSeed,
  outsideSample,
  sampleOrder,
  sampleSizeOf,
  type VariantPhase,
  type VariantPlanRow,
  variantPhase,
  variantPlanColumns,
} from './variant-plan.js';

export type FanOutStart = Pick<Notification, 'id' | 'appId' | 'planned'> & {
  /** Every target is planned already (`fanned_out_at` is set). */
  fannedOut: boolean;
};

/**
 * Moves a notification to `sending`; null when it is gone or already finished. Raw postgres.js,
 * as the rest of the first push's path: a drizzle query is not a prepared statement.
 */
export async function beginFanOut(db: Database, notificationId: string): Promise<FanOutStart | null> {
  const [row] = await db.$client<{ app_id: string; planned: number; fanned_out: boolean }[]>`
    update notifications set status = 'sending', updated_at = now()
    where id = ${notificationId} and status in ('queued', 'sending')
    returning app_id, planned, fanned_out_at is not null as fanned_out`;
  return row ? { id: notificationId, appId: row.app_id, planned: row.planned, fannedOut: row.fanned_out } : null;
}

/**
 * Keys of the chunks planned but not yet counted, without their subscription ids: loading every
 * chunk whole on each re-run of a big send's fan-out costs the worker memory. {@link loadChunks}
 * then reads only those to re-queue.
 */
export async function pendingChunkKeys(db: Database, notification: Pick<Notification, 'id'>): Promise<ChunkKey[]> {
  const rows = await db.$client<{ first_subscription_id: string; attempt: number }[]>`
    select first_subscription_id, attempt from notification_chunks
    where notification_id = ${notification.id} and completed_at is null
    order by attempt, first_subscription_id`;
  return rows.map((row) => ({
    notificationId: notification.id,
    firstSubscriptionId: row.first_subscription_id,
    attempt: row.attempt,
  }));
}

export async function loadChunks(
  db: Database,
  notification: Pick<Notification, 'id' | 'appId'>,
  keys: readonly ChunkKey[],
): Promise<DeliveryChunk[]> {
  if (keys.length === 0) return [];
  const rows = await db.$client<
    { first_subscription_id: string; attempt: number; subscription_ids: string[]; not_before: Date | string }[]
  >`
    select c.first_subscription_id, c.attempt, c.subscription_ids, c.not_before
    from notification_chunks c
    join unnest(${keys.map((key) => key.firstSubscriptionId)}::uuid[], ${keys.map((key) => key.attempt)}::int[])
      as k(first_subscription_id, attempt)
      on c.first_subscription_id = k.first_subscription_id and c.attempt = k.attempt
    where c.notification_id = ${notification.id} and c.completed_at is null
    order by c.attempt, c.first_subscription_id`;
  return rows.map((row) => ({
    notificationId: notification.id,
    appId: notification.appId,
    firstSubscriptionId: row.first_subscription_id,
    attempt: row.attempt,
    subscriptionIds: row.subscription_ids,
    // This client hands timestamps back as text (drizzle maps its own columns).
    notBefore: new Date(row.not_before),
  }));
}

export interface PlanOptions {
  chunkSize: number;
  /** Chunks planned per call (one transaction), so delivery starts before a huge plan is complete. */
  maxChunks: number;
}

/**
 * Plans the next chunks of a notification's targets, keyset-paginated by subscription id from where
 * the stored plan ends, so a re-run continues and chunk boundaries never move. The notification row
 * is locked, so two fan-outs of one notification take turns.
 *
 * The audience is capped at `targets` (what was reserved); subscribers that went away before the
 * fan-out reached them count as `expired`, so `sent + failed + expired` still reaches `targets`.
 */
export async function planDeliveryChunks(
  db: Database,
  notificationId: string,
  options: PlanOptions,
): Promise<{ chunks: DeliveryChunk[]; done: boolean }> {
  // Raw postgres.js rather than drizzle: a drizzle query is not a prepared statement, so postgres.js
  // sends each one twice (describe, then run) and PostgreSQL parses it every time.
  return db.$client.begin(async (transaction) => {
    const sql = inTransaction(transaction);
    // Keyset pages are planned for the app and audience at hand on every call: with one big app in
    // the table, a cached generic plan can scan every app's subscriptions (docs/architecture.md).
    const [, [notification]] = await Promise.all([
      sql`set local plan_cache_mode = force_custom_plan`,
      sql<PlanRow[]>`
        select app_id, targets, planned, plan_cursor, subscription_ids, target_kind, target_uids, target_tags,
          target_segment, ${variantPlanColumns(sql)}, local_time is not null as local, throttle_per_minute,
          coalesce(started_at, created_at) as since, fanned_out_at is not null as fanned_out,
          created_at::text as created_text
        from notifications where id = ${notificationId} and status in ('queued', 'sending')
        for update`,
    ]);
    if (!notification || notification.fanned_out) return { chunks: [], done: true };
    // An A/B test plans its own way (sample, then winner); the API refuses it with `localTime` or
    // `throttle`, so the rest of this function never sees variants.
    const phase = variantPhase(notification);
    if (phase !== 'none') return planVariantChunks(sql, notificationId, notification, phase, options);
    // A `localTime` send plans its started groups one after the other, each with its own cursor.
    const group = notification.local ? await nextStartedGroup(sql, notificationId) : null;
    if (notification.local && !group) return { chunks: [], done: true };
    const plan: PlanState = group
      ? { targets: group.targets, planned: group.planned, cursor: group.plan_cursor, base: group.due_at }
      : {
          targets: notification.targets,
          planned: notification.planned,
          cursor: notification.plan_cursor,
          base: notification.since,
        };

    const perMinute = notification.throttle_per_minute;
    const chunkSize = perMinute === null ? options.chunkSize : throttledChunkSize(options.chunkSize, perMinute);
    const remaining = plan.targets - plan.planned;
    const limit = Math.max(0, Math.min(chunkSize * options.maxChunks, remaining));
    const cursor = plan.cursor;
    const zones = group ? inLocalGroup(sql, group) : sql``;
    // PostgreSQL orders uuids bytewise, which is the order of their lower-case hex text.
    const fixedIds = notification.subscription_ids
      ? [...notification.subscription_ids].sort().filter((id) => cursor === null || id > cursor)
      : null;
    const page =
      fixedIds && !group
        ? sql`select unnest(${fixedIds.slice(0, limit)}::uuid[]) as id`
        : sql`
          select s.id from subscriptions s
          where s.app_id = ${notification.app_id}
            ${fixedIds ? sql`and s.id = any(${fixedIds}::uuid[])` : sql`and s.status = 'active' and s.created_at <= ${notification.since}::timestamptz`}
            ${cursor === null || fixedIds ? sql`` : sql`and s.id > ${cursor}::uuid`}
            ${fixedIds ? sql`` : audienceFilter(sql, notification, notification.since)}
            ${zones}
          order by s.id limit ${limit}`;
    // A throttled send's chunks are spread over time from the plan's start: chunk k goes out once
    // the pushes before it fit in the minutes since (docs/sending.md, "Throttling").
    const notBefore =
      perMinute === null
        ? sql`now()`
        : sql`${plan.base}::timestamptz + ((${plan.planned}::int + c.r0)::float8 * 60000 / ${perMinute}::int)
            * interval '1 millisecond'`;
    const rows =
      limit === 0
        ? []
        : await sql<{ ids: string[]; not_before: Date | string }[]>`
            with page as (${page}),
            numbered as (select id, row_number() over (order by id) - 1 as r from page),
            keyed as (select id, r, r / ${chunkSize} as k from numbered),
            chunks as (select k, array_agg(id order by id) as ids, min(r) as r0 from keyed group by k),
            timed as (select c.k, c.ids, ${notBefore} as not_before from chunks c),
            inserted as (
              insert into notification_chunks
                (notification_id, app_id, notification_created_at, first_subscription_id, attempt, subscription_ids,
                  last_subscription_id, not_before)
              select ${notificationId}, ${notification.app_id}, ${notification.created_text}::timestamptz, t.ids[1], 1,
                t.ids, t.ids[cardinality(t.ids)], t.not_before from timed t
            )
            select ids, not_before from timed order by k`;
    const chunks = rows.map(
      ({ ids, not_before }): DeliveryChunk => ({
        notificationId,
        appId: notification.app_id,
        firstSubscriptionId: ids[0] as string,
        attempt: 1,
        subscriptionIds: ids,
        // This client hands timestamps back as text.
        notBefore: new Date(not_before),
      }),
    );
    const planned = chunks.reduce((sum, chunk) => sum + chunk.subscriptionIds.length, 0);
    const lastChunk = chunks[chunks.length - 1];
    const planCursor = lastChunk ? (lastChunk.subscriptionIds[lastChunk.subscriptionIds.length - 1] as string) : cursor;
    // A short page means the audience is exhausted: what is left of `targets` vanished before the plan
    // reached it, and counts as expired, which may finish the notification here.
    const exhausted = planned < limit || planned === remaining;
    const left = remaining - planned;
    if (group) {
      await sql`update notification_local_groups set planned = ${plan.targets - left}, plan_cursor = ${planCursor}::uuid,
          fanned_out_at = ${exhausted ? sql`now()` : sql`null`}
        where notification_id = ${notificationId} and due_at = ${group.due_at}::timestamptz`;
      if (!exhausted) {
        await sql`update notifications set planned = planned + ${planned}, updated_at = now() where id = ${notificationId}`;
        return { chunks, done: false };
      }
      // The send is planned whole once its last group is.
      await addToCounters(
        sql,
        notificationId,
        { sent: 0, failed: 0, expired: left },
        sql`planned = n.planned + ${planned}, fanned_out_at = case when exists (select 1 from notification_local_groups g
          where g.notification_id = n.id and g.fanned_out_at is null) then null else now() end,`,
      );
      return { chunks, done: (await nextStartedGroup(sql, notificationId)) === null };
    }
    if (exhausted) {
      await addToCounters(
        sql,
        notificationId,
        { sent: 0, failed: 0, expired: left },
        sql`planned = ${notification.targets - left}, plan_cursor = ${planCursor}::uuid, fanned_out_at = now(),`,
      );
    } else {
      await sql`update notifications set planned = ${notification.targets - left}, plan_cursor = ${planCursor}::uuid,
        updated_at = now() where id = ${notificationId}`;
    }
    return { chunks, done: exhausted };
  }) as Promise<{ chunks: DeliveryChunk[]; done: boolean }>;
}

/**
 * Plans an A/B test's chunks: the whole sample in one ordered pass (each target's letter dealt in
 * the plan), then nothing until the winner pass has chosen, then everything outside the sample.
 */
async function planVariantChunks(
  sql: Sql,
  notificationId: string,
  notification: PlanRow,
  phase: VariantPhase,
  options: PlanOptions,
): Promise<{ chunks: DeliveryChunk[]; done: boolean }> {
  // The sample is planned; the rest waits for the winner (the worker's winner pass queues it).
  if (phase === 'waiting') return { chunks: [], done: true };

  const remaining = notification.targets - notification.planned;
  const seed = phase === 'sample' ? newSampleSeed() : notification.sample_seed;
  const sampleSize = phase === 'sample' ? sampleSizeOf(notification.sample ?? 0, notification.targets) : null;
  // The whole sample in one plan: it is chosen by one ordered pass over the audience.
  const limit =
    sampleSize !== null
      ? Math.min(sampleSize, remaining)
      : Math.max(0, Math.min(options.chunkSize * options.maxChunks, remaining));
  const cursor = notification.plan_cursor;
  const id = sql`s.id`;
  const notSampled = phase === 'winner' ? sql`and ${outsideSample(sql, id, notification)}` : sql``;
  const audience = notification.subscription_ids
    ? sql`select s.id from unnest(${notification.subscription_ids}::uuid[]) as s(id) where true`
    : sql`
          select s.id from subscriptions s
          where s.app_id = ${notification.app_id} and s.status = 'active'
            and s.created_at <= ${notification.since}::timestamptz
            ${audienceFilter(sql, notification, notification.since)}`;
  // PostgreSQL orders uuids bytewise, which is the order of their lower-case hex text.
  const page =
    phase === 'sample'
      ? sql`select s.id from (${audience}) s order by ${sampleOrder(sql, id, seed as string)} limit ${limit}`
      : notification.subscription_ids && phase !== 'winner'
        ? sql`select unnest(${[...notification.subscription_ids]
            .sort()
            .filter((id) => cursor === null || id > cursor)
            .slice(0, limit)}::uuid[]) as id`
        : sql`
          ${audience}
            ${cursor === null ? sql`` : sql`and s.id > ${cursor}::uuid`}
            ${notSampled}
          order by s.id limit ${limit}`;
  const letter = letterExpression(sql, phase, notification, notification.planned);
  const rows =
    limit === 0
      ? []
      : await sql<{ ids: string[]; bound_hash: string | null; bound_id: string | null }[]>`
            with page as (${page}),
            numbered as (
              select id, (row_number() over (order by id) - 1) / ${options.chunkSize} as k
                ${letter === null ? sql`` : sql`, ${letter} as letter`}
              from page),
            chunks as (
              select k, array_agg(id order by id) as ids
                ${letter === null ? sql`, null::text as letters` : sql`, string_agg(letter, '' order by id) as letters`}
              from numbered group by k),
            inserted as (
              insert into notification_chunks
                (notification_id, app_id, notification_created_at, first_subscription_id, attempt, subscription_ids,
                  last_subscription_id, variants)
              select ${notificationId}, ${notification.app_id}, ${notification.created_text}::timestamptz, c.ids[1], 1,
                c.ids, c.ids[cardinality(c.ids)], c.letters from chunks c
            )
            ${
              phase === 'sample'
                ? sql`, bound as (
                    select hashtextextended(p.id::text, ${seed as string}::bigint)::text as hash, p.id from page p
                    order by hashtextextended(p.id::text, ${seed as string}::bigint) desc, p.id desc limit 1)
                  select ids, (select hash from bound) as bound_hash, (select id from bound) as bound_id
                  from chunks order by k`
                : sql`select ids, null as bound_hash, null as bound_id from chunks order by k`
            }`;
  const now = new Date();
  const chunks = rows.map(
    ({ ids }): DeliveryChunk => ({
      notificationId,
      appId: notification.app_id,
      firstSubscriptionId: ids[0] as string,
      attempt: 1,
      subscriptionIds: ids,
      notBefore: now,
    }),
  );
  const planned = chunks.reduce((sum, chunk) => sum + chunk.subscriptionIds.length, 0);
  // The sample is keyset-free: the second phase pages from the start of the audience.
  const lastChunk = phase === 'sample' ? undefined : chunks[chunks.length - 1];
  const planCursor = lastChunk ? (lastChunk.subscriptionIds[lastChunk.subscriptionIds.length - 1] as string) : cursor;
  // A short page means the audience is exhausted: what is left of `targets` vanished before the plan
  // reached it, and counts as expired, which may finish the notification here.
  const done = planned < limit || planned === remaining;
  const left = remaining - planned;
  const sampled =
    phase === 'sample'
      ? sql`sample_size = ${sampleSize}, sample_seed = ${seed}::bigint,
            sample_bound_hash = ${rows[0]?.bound_hash ?? null}::bigint, sample_bound_id = ${rows[0]?.bound_id ?? null}::uuid,
            winner_at = now() + make_interval(mins => ${notification.winner_after_minutes}),`
      : sql``;
  if (done) {
    await addToCounters(
      sql,
      notificationId,
      { sent: 0, failed: 0, expired: left },
      sql`${sampled} planned = ${notification.targets - left}, plan_cursor = ${planCursor}::uuid, fanned_out_at = now(),`,
    );
  } else {
    await sql`update notifications set ${sampled} planned = ${notification.targets - left},
        plan_cursor = ${planCursor}::uuid, updated_at = now() where id = ${notificationId}`;
  }
  // After the sample nothing more is planned until the winner is chosen.
  return { chunks, done: done || phase === 'sample' };
}

/**
 * Targets per chunk of a send throttled at `perMinute`: a second's worth at most, so the chunks'
 * start times spread the pushes evenly over each minute instead of bunching them at its start.
 */
export const throttledChunkSize = (chunkSize: number, perMinute: number): number =>
  Math.max(1, Math.min(chunkSize, Math.ceil(perMinute / 60)));

interface PlanState {
  targets: number;
  planned: number;
  cursor: string | null;
  /** A throttled send's chunks are timed from here (text as PostgreSQL printed it). */
  base: string;
}

interface GroupRow {
  due_at: string;
  zones: string[];
  unzoned: boolean;
  targets: number;
  planned: number;
  plan_cursor: string | null;
}

/** The earliest started group of a `localTime` send not yet planned whole, locked for this plan. */
async function nextStartedGroup(sql: Sql, notificationId: string): Promise<GroupRow | null> {
  const [group] = await sql<GroupRow[]>`
    select due_at, zones, unzoned, targets, planned, plan_cursor from notification_local_groups
    where notification_id = ${notificationId} and started_at is not null and fanned_out_at is null
    order by due_at limit 1 for update`;
  return group ?? null;
}

interface PlanRow extends VariantPlanRow {
  app_id: string;
  /** `created_at` as PostgreSQL prints it, to the microsecond: the chunks' partition key. */
  created_text: string;
  targets: number;
  planned: number;
  plan_cursor: string | null;
  subscription_ids: string[] | null;
  target_kind: NotificationTargetKind;
  target_uids: string[] | null;
  target_tags: SubscriptionTags | null;
  target_segment: SegmentExpression | null;
  local: boolean;
  throttle_per_minute: number | null;
  /** As PostgreSQL prints it (this client hands timestamps back as text); sent back as is. */
  since: string;
  fanned_out: boolean;
}
