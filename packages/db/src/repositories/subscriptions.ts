import { and, desc, eq, sql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database } from '../client.js';
import { type SubscriptionStatus, type SubscriptionTags, subscriptions } from '../schema.js';
import type { AudienceChange } from './audiences.js';
import { beforePosition, cursorTimestamp, type KeysetPosition, type Page, toPage } from './pagination.js';
import { isSubscriberLimitError, releaseSlots, reserveSlot } from './subscriber-counters.js';
import { unprepared } from './unprepared.js';

export interface SubscriptionKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** `app_gone`: the app was deleted while the request ran (its keys went with it). */
export type UpsertResult = { id: string; created: boolean } | 'limit' | 'rate_limited' | 'app_gone';

export interface UpsertOptions {
  /**
   * Asked once, only when the endpoint is new to the app, before it is inserted: false refuses the
   * subscription (`rate_limited`). The per-app cap on new subscriptions lives here.
   */
  admitNew?: () => Promise<boolean>;
  audience?: AudienceChange;
  /**
   * The version of the app's VAPID key the browser subscribed with (see `findVapidKeyVersion`);
   * absent: the app's current key, read in the same statement that stores the subscription.
   */
  vapidKeyVersion?: number;
  /**
   * The id of the app's subscription of this endpoint when the caller has just found it stored (the
   * batched insert of `createSubscribeBatcher`): the re-subscribe goes straight to its update.
   */
  knownId?: string;
}

/** What a subscribe statement found: the subscription's id, or no row (it vanished or was taken meanwhile). */
type SubscribeRow = { id: string };

/**
 * Stores a browser subscription: new → created; already stored → keys updated and, if it had
 * expired, active again. A new or re-activated subscription takes a slot of the owner's counter in
 * the same statement, so concurrent subscribes cannot overshoot the plan by even one. Each write is
 * one statement outside any transaction block: the counter's row lock lasts only until it commits.
 */
export async function upsertSubscription(
  db: Database,
  ownerId: string,
  appId: string,
  keys: SubscriptionKeys,
  maxActive: number | null,
  options: UpsertOptions = {},
): Promise<UpsertResult> {
  const sql = db.$client;
  const uidGiven = options.audience?.uid !== undefined;
  const uid = options.audience?.uid ?? null;
  const tags = options.audience?.tags === undefined ? null : JSON.stringify(options.audience.tags);
  const keyVersion = options.vapidKeyVersion ?? null;
  // A subscribe gives these or not (never null): absent keeps what a re-subscribe had.
  const language = options.audience?.language ?? null;
  const timeZone = options.audience?.timeZone ?? null;
  // Two rounds at most in practice: a concurrent insert or delete of the same endpoint sends the
  // statement of the other kind round again.
  let admissionAsked = false;
  // Without an admission check (the per-app cap is off by default), a subscribe tries the insert
  // straight away: a new endpoint, the common case, costs one statement; for a known one the same
  // statement returns its id, and the update follows (two, as with a look-up first).
  let known: { id: string } | undefined = options.knownId === undefined ? undefined : { id: options.knownId };
  for (let round = 0; ; round++) {
    if (round > 5) throw new Error('subscribe kept racing with concurrent changes of the same endpoint');
    const [existing] =
      round === 0 && !options.admitNew && !known
        ? []
        : known
          ? [known]
          : await unprepared<{ id: string }[]>(sql)`
      select id from subscriptions where app_id = ${appId} and endpoint = ${keys.endpoint}`;
    known = undefined;
    try {
      if (!existing) {
        if (!admissionAsked && options.admitNew) {
          admissionAsked = true;
          if (!(await options.admitNew())) return 'rate_limited';
        }
        // Locks in the order every writer takes them (app, subscription, counter), so this cannot
        // deadlock with deleteApp, which locks the app first. The lock is also what keeps a deleted
        // app without subscriptions (there is no foreign key, migration 0023): an app deleted before
        // it is not found, and one not yet deleted waits to delete the new row with the others.
        const [inserted] = await unprepared<(SubscribeRow & { created: boolean })[]>(sql)`
          with app as (
            select id, vapid_key_version from apps where id = ${appId} for key share
          ), inserted as (
            insert into subscriptions (app_id, endpoint, p256dh, auth, uid, tags, language, time_zone, vapid_key_version)
            select app.id, ${keys.endpoint}, ${keys.p256dh}, ${keys.auth}, ${uid}, coalesce(${tags}::jsonb, '{}'::jsonb),
              ${language}::text, ${timeZone}::text, coalesce(${keyVersion}::int, app.vapid_key_version)
            from app
            on conflict (app_id, endpoint) do nothing
            returning id
          ), reserved as (${reserveSlot(sql, ownerId, maxActive, sql`inserted`)})
          select i.id, true as created,
            case when not exists (select 1 from reserved) then subscriber_limit_exceeded() end as over_limit
          from inserted i
          union all
          select s.id, false, null::integer from subscriptions s
          where s.app_id = ${appId} and s.endpoint = ${keys.endpoint} and not exists (select 1 from inserted)`;
        if (inserted?.created) return { id: inserted.id, created: true };
        if (inserted) {
          known = { id: inserted.id };
          continue;
        }
        // Nothing inserted and nothing found: the app is gone (deleted meanwhile), or a concurrent
        // subscribe of this endpoint won after this statement's snapshot, so look again.
        if (round > 0 || options.admitNew) {
          const [app] = await sql`select 1 from apps where id = ${appId}`;
          if (!app) return 'app_gone';
        }
        continue;
      }
      // `previous` locks the row and reads its status as it is now (READ COMMITTED re-reads a row
      // that changed since the snapshot), so an expiry or another re-activation racing with this one
      // is counted once.
      const [updated] = await sql<SubscribeRow[]>`
        with previous as (
          select id, status from subscriptions where id = ${existing.id} for update
        ), reactivated as (
          select id from previous where status <> 'active'
        ), reserved as (${reserveSlot(sql, ownerId, maxActive, sql`reactivated`)}),
        updated as (
          update subscriptions s set p256dh = ${keys.p256dh}, auth = ${keys.auth},
            uid = case when ${uidGiven} then ${uid} else s.uid end,
            tags = coalesce(${tags}::jsonb, s.tags),
            language = coalesce(${language}::text, s.language), time_zone = coalesce(${timeZone}::text, s.time_zone),
            vapid_key_version = coalesce(${keyVersion}::int, (select a.vapid_key_version from apps a where a.id = s.app_id)),
            status = 'active', expired_at = null, updated_at = now()
          from previous p where s.id = p.id
          returning s.id
        )
        select u.id, case when p.status <> 'active' and not exists (select 1 from reserved)
          then subscriber_limit_exceeded() end
        from updated u join previous p on p.id = u.id`;
      if (updated) return { id: updated.id, created: false };
      // Deleted since it was looked up: go round as a new subscription.
    } catch (error) {
      if (isSubscriberLimitError(error)) return 'limit';
      throw error;
    }
  }
}

/**
 * A statement that deletes the subscriptions `deleting` (a query of `delete … returning status`)
 * selects and gives their active slots back to the owner of `appId`, in one statement.
 */
async function deleteReleasing(
  sql: Database['$client'],
  appId: string,
  deleting: postgres.PendingQuery<postgres.Row[]>,
): Promise<boolean> {
  const [row] = await unprepared<{ deleted: number }[]>(sql)`
    with deleted as (${deleting})
    select (select count(*)::int from deleted) as deleted, released
    from (${releaseSlots(sql, appId, sql`select count(*) from deleted where status = 'active'`)}) r`;
  return (row?.deleted ?? 0) > 0;
}

export async function deleteSubscription(db: Database, appId: string, endpoint: string): Promise<boolean> {
  const sql = db.$client;
  return deleteReleasing(
    sql,
    appId,
    sql`delete from subscriptions where app_id = ${appId} and endpoint = ${endpoint} returning id, status`,
  );
}

export interface SubscriptionSummary {
  id: string;
  endpoint: string;
  status: SubscriptionStatus;
  uid: string | null;
  tags: SubscriptionTags;
  language: string | null;
  timeZone: string | null;
  /** The VAPID public key the subscription was made with; null once that retired key was deleted. */
  vapidPublicKey: string | null;
  createdAt: Date;
}

/** Newest first; a status-or-not index each, so a page is an index range scan under a Limit, no Sort. */
export async function listSubscriptions(
  db: Database,
  appId: string,
  page: {
    limit: number;
    after: KeysetPosition | null;
    status: SubscriptionStatus | null;
    uid?: string | null;
    tags?: SubscriptionTags | null;
    /** The language is this tag or starts with it and `-`, case-insensitively, as a segment's `language`. */
    language?: string | null;
    timeZone?: string | null;
  },
): Promise<Page<SubscriptionSummary>> {
  const rows = await db
    .select({
      id: subscriptions.id,
      endpoint: subscriptions.endpoint,
      status: subscriptions.status,
      uid: subscriptions.uid,
      tags: subscriptions.tags,
      language: subscriptions.language,
      timeZone: subscriptions.timeZone,
      // Spelt out: drizzle writes a lone table's columns unqualified, which inside these subqueries
      // would name the subquery's own columns.
      vapidPublicKey: sql<string | null>`coalesce(
        (select a.vapid_public_key from apps a
          where a.id = subscriptions.app_id and a.vapid_key_version = subscriptions.vapid_key_version),
        (select k.public_key from retired_vapid_keys k
          where k.app_id = subscriptions.app_id and k.version = subscriptions.vapid_key_version))`,
      createdAt: subscriptions.createdAt,
      cursorAt: cursorTimestamp(subscriptions.createdAt),
    })
    .from(subscriptions)
    .where(
      and(
        eq(subscriptions.appId, appId),
        page.status ? eq(subscriptions.status, page.status) : undefined,
        page.uid ? eq(subscriptions.uid, page.uid) : undefined,
        page.tags ? sql`${subscriptions.tags} @> ${JSON.stringify(page.tags)}::jsonb` : undefined,
        // Implied by a pair, and lets the tags index (only subscriptions with tags) serve the filter.
        page.tags && Object.keys(page.tags).length > 0 ? sql`${subscriptions.tags} <> '{}'::jsonb` : undefined,
        // Written as the segment leaf is, so `subscriptions_app_language_idx` serves it; a tag holds
        // only letters, digits and `-`, nothing a LIKE pattern would read as a wildcard.
        page.language
          ? sql`(lower(${subscriptions.language}) = ${page.language.toLowerCase()}::text
              or lower(${subscriptions.language}) like ${`${page.language.toLowerCase()}-%`}::text)`
          : undefined,
        page.timeZone ? eq(subscriptions.timeZone, page.timeZone) : undefined,
        page.after ? beforePosition(subscriptions.createdAt, subscriptions.id, page.after) : undefined,
      ),
    )
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit);
}

export async function deleteSubscriptionById(db: Database, appId: string, id: string): Promise<boolean> {
  const sql = db.$client;
  return deleteReleasing(
    sql,
    appId,
    sql`delete from subscriptions where app_id = ${appId} and id = ${id} returning id, status`,
  );
}
