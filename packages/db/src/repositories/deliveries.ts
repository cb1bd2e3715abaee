import { and, asc, sql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database } from '../client.js';
import { type NotificationTargetKind, notifications, type PushFormat, type SubscriptionTags } from '../schema.js';
import { audienceFilter } from './audiences.js';
import type { Notification } from './notifications.js';
import { releaseSlots } from './subscriber-counters.js';
import { withNotificationFinishedOutbox, withSubscriptionsExpiredOutbox } from './webhook-outbox.js';

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

const isUnfinished = sql`${notifications.status} in ('queued', 'sending')`;

/**
 * Adds counts to a notification and finishes it, atomically, once `sent + failed + expired` reaches
 * `targets`: `completed`, or `failed` when nothing was sent (the right-hand sides read the row's
 * values before this update). The `notification.*` webhook event is written in the same statement
 * when that happens. `also` sets more columns in the same update (a fragment ending with a comma).
 */
function addToCounters(sql: postgres.Sql, notificationId: string, counts: ChunkCounts, also = sql``) {
  const { sent, failed, expired } = counts;
  const total = sent + failed + expired;
  return withNotificationFinishedOutbox(
    sql,
    sql`update notifications n set ${also} sent = n.sent + ${sent}, failed = n.failed + ${failed},
      expired = n.expired + ${expired},
      status = case when n.sent + n.failed + n.expired + ${total} >= n.targets
        then (case when n.sent + ${sent} > 0 then 'completed' else 'failed' end) else n.status end,
      completed_at = case when n.sent + n.failed + n.expired + ${total} >= n.targets
        then coalesce(n.completed_at, now()) else n.completed_at end,
      updated_at = now()
    where n.id = ${notificationId}
    returning n.id, n.app_id, n.status`,
  );
}

/** A SET clause (for `addToCounters`'s `also`) adding `reasons` to the notification's per-reason counts. */
const addFailureReasons = (sql: postgres.Sql, reasons: Readonly<Record<string, number>>) => sql`
  failure_reasons = (select coalesce(jsonb_object_agg(r.key, r.count), '{}'::jsonb) from (
    select e.key, sum(e.value::int) as count from (
      select key, value from jsonb_each_text(n.failure_reasons)
      union all select key, value from jsonb_each_text(${JSON.stringify(reasons)}::jsonb)) e
    group by e.key) r),`;

/** What the fan-out needs of a notification it starts. */
export type FanOutStart = Pick<Notification, 'id' | 'appId' | 'planned'> & {
  /** Every target is planned already (`fanned_out_at` is set). */
  fannedOut: boolean;
};

/**
 * Moves a notification to `sending` and marks progress; null when it is gone or already finished.
 * Raw postgres.js, as the rest of the first push's path: a drizzle query is not a prepared statement,
 * so postgres.js describes it in a round trip of its own before running it.
 */
export async function beginFanOut(db: Database, notificationId: string): Promise<FanOutStart | null> {
  const [row] = await db.$client<{ app_id: string; planned: number; fanned_out: boolean }[]>`
    update notifications set status = 'sending', updated_at = now()
    where id = ${notificationId} and status in ('queued', 'sending')
    returning app_id, planned, fanned_out_at is not null as fanned_out`;
  return row ? { id: notificationId, appId: row.app_id, planned: row.planned, fannedOut: row.fanned_out } : null;
}

/**
 * Keys of the chunks planned but not yet counted, without their subscription ids: what a re-run of
 * the fan-out asks Redis about. A notification of 1,000,000 has 2,000 chunks of 500 ids; loading
 * them all on every re-run (the reconciler re-runs the fan-out of a big send that is merely slow)
 * took the worker from 250 to 338 MB of RSS. {@link loadChunks} then reads only those to re-queue.
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

/** The chunks of `keys` (of one notification) that are still not counted, whole. */
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
 * Plans the next chunks of a notification's targets, keyset-paginated by subscription id from
 * where the stored plan ends, so a re-run continues instead of starting over and chunk boundaries
 * never move. The notification row is locked, so two fan-outs of one notification take turns.
 *
 * `all`, `uids` and `tags` targets are the app's active subscribers of that audience that existed
 * when the send started (acceptance, or the start of a scheduled send), capped at `targets`
 * (what was reserved). Subscribers that went away before the fan-out reached them leave a
 * shortfall, counted as `expired` when the plan is complete, so `sent + failed + expired` still
 * reaches `targets`.
 */
export async function planDeliveryChunks(
  db: Database,
  notificationId: string,
  options: PlanOptions,
): Promise<{ chunks: DeliveryChunk[]; done: boolean }> {
  // Raw postgres.js rather than drizzle: a drizzle query is not a prepared statement, so postgres.js
  // sends each one twice (describe, then run) and PostgreSQL parses it every time. A plan of 20
  // chunks took 2 round trips a chunk's keyset page, plus 8; it now takes 5 whatever its size.
  return db.$client.begin(async (transaction) => {
    const sql = inTransaction(transaction);
    // Keyset pages are planned for the app and audience at hand on every call, never by a cached
    // generic plan: with one big app in the table, a generic plan can scan every app's subscriptions
    // (the cause found behind `count_active_targets`, migration 0012). Sent with the lock, one round trip.
    const [, [notification]] = await Promise.all([
      sql`set local plan_cache_mode = force_custom_plan`,
      sql<PlanRow[]>`
        select app_id, targets, planned, plan_cursor, subscription_ids, target_kind, target_uids, target_tags,
          coalesce(started_at, created_at) as since, fanned_out_at is not null as fanned_out
        from notifications where id = ${notificationId} and status in ('queued', 'sending')
        for update`,
    ]);
    if (!notification || notification.fanned_out) return { chunks: [], done: true };

    const remaining = notification.targets - notification.planned;
    const limit = Math.max(0, Math.min(options.chunkSize * options.maxChunks, remaining));
    const cursor = notification.plan_cursor;
    // PostgreSQL orders uuids bytewise, which is the order of their lower-case hex text.
    const page = notification.subscription_ids
      ? sql`select unnest(${[...notification.subscription_ids]
          .sort()
          .filter((id) => cursor === null || id > cursor)
          .slice(0, limit)}::uuid[]) as id`
      : sql`
          select s.id from subscriptions s
          where s.app_id = ${notification.app_id} and s.status = 'active'
            and s.created_at <= ${notification.since}::timestamptz
            ${cursor === null ? sql`` : sql`and s.id > ${cursor}::uuid`}
            ${audienceFilter(sql, notification)}
          order by s.id limit ${limit}`;
    // One statement reads the page of targets, cuts it into chunks and inserts them.
    const rows =
      limit === 0
        ? []
        : await sql<{ ids: string[] }[]>`
            with page as (${page}),
            numbered as (select id, (row_number() over (order by id) - 1) / ${options.chunkSize} as k from page),
            chunks as (select k, array_agg(id order by id) as ids from numbered group by k),
            inserted as (
              insert into notification_chunks
                (notification_id, first_subscription_id, attempt, subscription_ids, last_subscription_id)
              select ${notificationId}, c.ids[1], 1, c.ids, c.ids[cardinality(c.ids)] from chunks c
            )
            select ids from chunks order by k`;
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
    const lastChunk = chunks[chunks.length - 1];
    const planCursor = lastChunk ? (lastChunk.subscriptionIds[lastChunk.subscriptionIds.length - 1] as string) : cursor;
    // A short page means the audience is exhausted: what is left of `targets` vanished before the plan
    // reached it, and counts as expired, which may finish the notification here.
    const done = planned < limit || planned === remaining;
    const left = remaining - planned;
    if (done) {
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
    return { chunks, done };
  }) as Promise<{ chunks: DeliveryChunk[]; done: boolean }>;
}

interface PlanRow {
  app_id: string;
  targets: number;
  planned: number;
  plan_cursor: string | null;
  subscription_ids: string[] | null;
  target_kind: NotificationTargetKind;
  target_uids: string[] | null;
  target_tags: SubscriptionTags | null;
  /** As PostgreSQL prints it (this client hands timestamps back as text); sent back as is. */
  since: string;
  fanned_out: boolean;
}

export interface DeliveryContext {
  notification: Pick<Notification, 'id' | 'appId' | 'payload' | 'ttl' | 'urgency' | 'topic'>;
  app: {
    id: string;
    vapidPublicKey: string;
    vapidPrivateKeySealed: string;
    /** The app's current key version; subscriptions made with an earlier one name their `vapidKeyVersion`. */
    vapidKeyVersion: number;
    /** What the app's browsers receive (CONTRACT 1.2). */
    pushFormat: PushFormat;
    defaultUrl: string | null;
  };
}

export interface DeliverableSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  /** The version of the app's VAPID key the subscription was made with: its pushes are signed with it. */
  vapidKeyVersion: number;
}

/** What a delivery chunk needs before its first push, read in two queries that run side by side. */
export type ChunkStart =
  /** The notification is gone (its app was deleted). */
  | { state: 'gone' }
  /** The chunk's outcome is already counted (or the chunk no longer exists). */
  | { state: 'settled' }
  | {
      state: 'open';
      delivery: DeliveryContext;
      /** Active targets not yet answered, by an earlier run included. */
      subscriptions: DeliverableSubscription[];
      /** Targets not yet answered; those not among `subscriptions` expired or were removed since the plan. */
      unanswered: number;
    };

interface ChunkStartRow {
  chunk_found: boolean;
  completed: boolean;
  answered: number;
  app_id: string;
  payload: Notification['payload'];
  ttl: number;
  urgency: Notification['urgency'];
  topic: string | null;
  vapid_public_key: string;
  vapid_private_key_sealed: string;
  push_format: PushFormat;
  default_url: string | null;
  vapid_key_version: number;
}

/**
 * Loads a chunk for sending: the notification with its app's VAPID keys, whether the chunk is
 * already counted, and its still-active targets minus those a crashed earlier run recorded as
 * answered (rows of `notification_chunk_answers`, or the chunk's own array, written by a version
 * that merged progress into it). Raw postgres.js rather than drizzle here: this runs per chunk on
 * the hot path, and drizzle's row mapping of 500 subscriptions showed in the worker's CPU profile.
 */
export async function startChunk(
  db: Database,
  chunk: ChunkKey & { appId: string },
  ids: readonly string[],
): Promise<ChunkStart> {
  const sql = db.$client;
  const [[row], subscriptionRows] = await Promise.all([
    sql<ChunkStartRow[]>`
      select c.notification_id is not null as chunk_found, c.completed_at is not null as completed,
        (select count(*) from (select unnest(c.answered_subscription_ids) union select unnest(p.subscription_ids)
          from notification_chunk_answers p where p.notification_id = n.id
            and p.first_subscription_id = ${chunk.firstSubscriptionId} and p.attempt = ${chunk.attempt}) answered)::int
          as answered,
        n.app_id, n.payload, n.ttl, n.urgency, n.topic, a.vapid_public_key, a.vapid_private_key_sealed,
        a.push_format, a.default_url, a.vapid_key_version
      from notifications n
      join apps a on a.id = n.app_id
      left join notification_chunks c on c.notification_id = n.id
        and c.first_subscription_id = ${chunk.firstSubscriptionId} and c.attempt = ${chunk.attempt}
      where n.id = ${chunk.notificationId}`,
    ids.length === 0
      ? Promise.resolve([])
      : sql<DeliverableSubscription[]>`
      select s.id, s.endpoint, s.p256dh, s.auth, s.vapid_key_version as "vapidKeyVersion" from subscriptions s
      where s.app_id = ${chunk.appId} and s.status = 'active' and s.id = any(${ids as string[]}::uuid[])
        and s.id <> all(coalesce((select c.answered_subscription_ids from notification_chunks c
          where c.notification_id = ${chunk.notificationId} and c.first_subscription_id = ${chunk.firstSubscriptionId}
            and c.attempt = ${chunk.attempt}), '{}'::uuid[]))
        and s.id not in (select unnest(p.subscription_ids) from notification_chunk_answers p
          where p.notification_id = ${chunk.notificationId} and p.first_subscription_id = ${chunk.firstSubscriptionId}
            and p.attempt = ${chunk.attempt})`,
  ]);
  if (!row) return { state: 'gone' };
  if (!row.chunk_found || row.completed) return { state: 'settled' };
  return {
    state: 'open',
    delivery: {
      notification: {
        id: chunk.notificationId,
        appId: row.app_id,
        payload: row.payload,
        ttl: row.ttl,
        urgency: row.urgency,
        topic: row.topic,
      },
      app: {
        id: row.app_id,
        vapidPublicKey: row.vapid_public_key,
        vapidPrivateKeySealed: row.vapid_private_key_sealed,
        pushFormat: row.push_format,
        defaultUrl: row.default_url,
        vapidKeyVersion: row.vapid_key_version,
      },
    },
    subscriptions: [...subscriptionRows],
    unanswered: ids.length - row.answered,
  };
}

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
const mergeAnswers = (sql: Database['$client']) => {
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

type Sql = Database['$client'];
/** postgres.js's transaction handle takes the same tagged-template queries as the pool. */
const inTransaction = (sql: postgres.TransactionSql): Sql => sql as unknown as Sql;

/**
 * Subscriptions the push service answered 404/410 for become expired; the rest of the app is
 * untouched, and the owner's subscriber counter goes down by as many. The only place the worker
 * expires subscriptions; the `subscription.expired` webhook event of each one and the counter's
 * release are written by the same statement.
 */
async function expireSubscriptions(sql: Sql, appId: string, batch: AnsweredBatch): Promise<void> {
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
const completeChunk = (sql: Sql, chunk: ChunkKey, last: AnsweredBatch) => sql<
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

/** A chunk's answers for {@link recordProgress}. */
export interface ChunkAnswers {
  chunk: ChunkKey & { appId: string };
  batch: AnsweredBatch;
}

/**
 * Records answered pushes of chunks still open, so a re-run after a crash does not send them again:
 * one INSERT of a progress row for every chunk in `answers` (a worker sends several chunks at once,
 * and one write for all of them costs a round trip instead of one each). Answers of subscriptions
 * that expired are recorded in the same transaction as the expiry. Resolves to one flag per entry of
 * `answers`, in order: false when that chunk is already counted (another run finished it), and
 * nothing of it was written.
 *
 * Appended rather than merged into the chunk's row: a merge rewrote the row's growing arrays and
 * compared every answer with every earlier one, ~12 µs of PostgreSQL CPU a push
 * (docs/performance.md). A progress write that races the run completing the chunk may leave a row of a
 * completed chunk behind; nothing reads those (its answers were sent again by the completing run).
 */
export async function recordProgress(db: Database, answers: readonly ChunkAnswers[]): Promise<boolean[]> {
  const flags = answers.map(() => true);
  const positions = answers.flatMap(({ batch }, index) => (batch.ids.length > 0 ? [index] : []));
  const entries = positions.map((index) => answers[index] as ChunkAnswers);
  if (entries.length === 0) return flags;
  const update = async (sql: Sql) => {
    const firsts: number[] = [];
    const lasts: number[] = [];
    const ids: string[] = [];
    const kinds: AnswerKind[] = [];
    for (const { batch } of entries) {
      firsts.push(ids.length + 1);
      for (let index = 0; index < batch.ids.length; index++) {
        ids.push(batch.ids[index] as string);
        kinds.push(batch.kinds[index] as AnswerKind);
      }
      lasts.push(ids.length);
    }
    const rows = await sql<{ ordinal: number }[]>`
      with chunks as (
        select * from unnest(${entries.map(({ chunk }) => chunk.notificationId)}::uuid[],
          ${entries.map(({ chunk }) => chunk.firstSubscriptionId)}::uuid[],
          ${entries.map(({ chunk }) => chunk.attempt)}::int[],
          ${entries.map(({ batch }) => batch.retryAfterMs)}::int[], ${firsts}::int[], ${lasts}::int[]) with ordinality
          as k(notification_id, first_subscription_id, attempt, retry_after_ms, first_answer, last_answer, position)
      ), written as (
        insert into notification_chunk_answers
          (notification_id, first_subscription_id, attempt, subscription_ids, kinds, retry_after_ms)
        select k.notification_id, k.first_subscription_id, k.attempt, (${ids}::uuid[])[k.first_answer:k.last_answer],
          (${kinds}::text[])[k.first_answer:k.last_answer], k.retry_after_ms
        from chunks k
        join notification_chunks c on c.notification_id = k.notification_id
          and c.first_subscription_id = k.first_subscription_id and c.attempt = k.attempt and c.completed_at is null
        returning notification_id, first_subscription_id, attempt
      )
      select (k.position - 1)::int as ordinal from chunks k join written w using (notification_id, first_subscription_id, attempt)`;
    const open = new Set(rows.map((row) => row.ordinal));
    for (const [ordinal, { chunk, batch }] of entries.entries()) {
      if (open.has(ordinal)) await expireSubscriptions(sql, chunk.appId, batch);
    }
    return open;
  };
  const expiring = entries.some(({ batch }) => batch.kinds.includes('expired'));
  const open = expiring
    ? ((await db.$client.begin((transaction) => update(inTransaction(transaction)))) as Set<number>)
    : await update(db.$client);
  for (const [ordinal, index] of positions.entries()) flags[index] = open.has(ordinal);
  return flags;
}

/**
 * Records a batch of answered pushes of one chunk still open (see {@link recordProgress}). False
 * when the chunk is already counted (another run finished it).
 */
export async function recordChunkProgress(
  db: Database,
  chunk: ChunkKey & { appId: string },
  batch: AnsweredBatch,
): Promise<boolean> {
  const [open] = await recordProgress(db, [{ chunk, batch }]);
  return open ?? true;
}

/**
 * Records a chunk's outcome exactly once, in one transaction: merges the last answers and claims
 * the chunk (a re-run that finds it already counted changes nothing), expires the gone
 * subscriptions, plans the retry chunk from every retry answer recorded for the chunk, and adds
 * the chunk's counts to the notification in one UPDATE that also completes it. `vanished` targets
 * (expired or removed before they were sent to) count as expired. A retried push is neither sent
 * nor failed yet: the retry chunk counts it when it completes.
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
): Promise<{ recorded: boolean; counts: ChunkCounts | null; retryChunk: DeliveryChunk | null }> {
  return db.$client.begin(async (transaction) => {
    const sql = inTransaction(transaction);
    const [claimed] = await completeChunk(sql, chunk, last);
    if (!claimed) return { recorded: false, counts: null, retryChunk: null };
    await expireSubscriptions(sql, chunk.appId, last);
    const counts: ChunkCounts = { sent: claimed.sent, failed: claimed.failed, expired: claimed.expired + vanished };
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
      await sql`insert into notification_chunks
          (notification_id, first_subscription_id, attempt, subscription_ids, last_subscription_id, not_before)
        values (${chunk.notificationId}, ${first}, ${retryChunk.attempt}, ${retryIds}::uuid[], ${lastId},
          ${retryChunk.notBefore.toISOString()}::timestamptz)
        on conflict do nothing`;
    }

    const reasons = Object.keys(failureReasons).length === 0 ? sql`` : addFailureReasons(sql, failureReasons);
    await addToCounters(sql, chunk.notificationId, counts, reasons);
    return { recorded: true, counts, retryChunk };
  }) as Promise<{ recorded: boolean; counts: ChunkCounts | null; retryChunk: DeliveryChunk | null }>;
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
