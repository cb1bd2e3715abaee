import type postgres from 'postgres';
import type { Database } from '../client.js';
import type { SubscriptionTags } from '../schema.js';
import { type AuditContext, recordAuditIn } from './audit-log.js';
import type { SubscriptionKeys } from './subscriptions.js';
import { unprepared } from './unprepared.js';

/** One subscription of an import, already checked as `POST /subscribe` checks it. */
export interface ImportedSubscription extends SubscriptionKeys {
  uid?: string;
  tags?: SubscriptionTags;
  language?: string;
  timeZone?: string;
}

/** Per entry: stored new, an endpoint the app had (updated, re-activated if it had expired), or past the plan's limit. */
export type ImportOutcome = 'imported' | 'updated' | 'limit';

/** Who imports, for the `subscribers.imported` entry, and how many entries were refused before the database. */
export interface ImportAudit {
  context: AuditContext;
  invalid: number;
}

/** PostgreSQL's SQLSTATE for a deadlock: the transaction chosen as its victim was rolled back. */
const DEADLOCK = '40P01';
const ATTEMPTS = 3;

interface Merged extends ImportedSubscription {
  /** The index of the endpoint's first entry: it decides the entry's place before the plan's limit. */
  first: number;
  uidGiven: boolean;
}

/**
 * An endpoint given twice counts as two subscribes in a row: the later entry's keys, and its uid and
 * tags when it has them, are what is stored, in the place of the first.
 */
function mergeByEndpoint(entries: readonly ImportedSubscription[]): { merged: Merged[]; firstOf: number[] } {
  const byEndpoint = new Map<string, Merged>();
  const firstOf = entries.map((entry, index) => {
    const seen = byEndpoint.get(entry.endpoint);
    if (!seen) {
      byEndpoint.set(entry.endpoint, { ...entry, first: index, uidGiven: entry.uid !== undefined });
      return index;
    }
    seen.p256dh = entry.p256dh;
    seen.auth = entry.auth;
    if (entry.uid !== undefined) {
      seen.uid = entry.uid;
      seen.uidGiven = true;
    }
    if (entry.tags !== undefined) seen.tags = entry.tags;
    if (entry.language !== undefined) seen.language = entry.language;
    if (entry.timeZone !== undefined) seen.timeZone = entry.timeZone;
    return seen.first;
  });
  return { merged: [...byEndpoint.values()], firstOf };
}

/**
 * Stores an owner's list of subscriptions for one app in one transaction, with a handful of
 * set-based statements whatever the list's length. Entries that need a slot of the plan (new, or
 * expired and re-activated) get one in list order while the owner's count allows; the rest are
 * `limit` and change nothing.
 *
 * Locks are taken in the order every subscribe takes them (the app, then subscriptions, then the
 * owner's counter stripes), so the import cannot deadlock with a subscribe: the new rows are
 * inserted first, then the counter's 16 stripes are locked in stripe order and summed (the exact
 * path of `take_subscriber_slot`), and the rows that found no slot are deleted again before the
 * commit, so nobody ever sees them. The count is then set to the exact new sum
 * (`set_subscriber_count`). Any other deadlock (with the worker expiring some of the same rows)
 * rolls the whole import back, and it is tried again.
 *
 * Returns an outcome per entry, or `app_gone` when the app is not the owner's (any more).
 */
export async function importSubscriptions(
  db: Database,
  ownerId: string,
  appId: string,
  entries: readonly ImportedSubscription[],
  maxActive: number | null,
  audit?: ImportAudit,
): Promise<ImportOutcome[] | 'app_gone'> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await importOnce(db, ownerId, appId, entries, maxActive, audit);
    } catch (error) {
      if (attempt >= ATTEMPTS || (error as { code?: unknown } | null)?.code !== DEADLOCK) throw error;
    }
  }
}

async function importOnce(
  db: Database,
  ownerId: string,
  appId: string,
  entries: readonly ImportedSubscription[],
  maxActive: number | null,
  audit: ImportAudit | undefined,
): Promise<ImportOutcome[] | 'app_gone'> {
  const { merged, firstOf } = mergeByEndpoint(entries);
  const outcomes = await db.$client.begin(async (sql) => {
    // Planned for this import's rows, never with a generic plan made for another (see `unprepared`).
    const planned = <T extends readonly unknown[]>() => unprepared<T>(sql as unknown as postgres.Sql);
    const [app] = await sql<{ version: number }[]>`
      select vapid_key_version as version from apps where id = ${appId} and user_id = ${ownerId} for key share`;
    if (!app) return 'app_gone' as const;

    const input = JSON.stringify(
      merged.map((entry) => ({
        endpoint: entry.endpoint,
        p256dh: entry.p256dh,
        auth: entry.auth,
        uid: entry.uid ?? null,
        uid_given: entry.uidGiven,
        tags: entry.tags ?? null,
        language: entry.language ?? null,
        time_zone: entry.timeZone ?? null,
      })),
    );
    // In endpoint order, as the subscribe batcher inserts: two imports of the same endpoints cannot deadlock.
    const inserted = await sql<{ id: string; endpoint: string }[]>`
      insert into subscriptions (app_id, endpoint, p256dh, auth, uid, tags, language, time_zone, vapid_key_version)
      select ${appId}, t.endpoint, t.p256dh, t.auth, t.uid, coalesce(t.tags, '{}'::jsonb), t.language, t.time_zone,
        ${app.version}
      from json_to_recordset(${input}::json)
        as t(endpoint text, p256dh text, auth text, uid text, tags jsonb, language text, time_zone text)
      order by t.endpoint
      on conflict (app_id, endpoint) do nothing
      returning id, endpoint`;
    const insertedIds = new Map(inserted.map((row) => [row.endpoint, row.id]));
    const others = merged.filter((entry) => !insertedIds.has(entry.endpoint)).map((entry) => entry.endpoint);
    // A new statement sees the rows a concurrent subscribe committed while the insert waited for it.
    const existing =
      others.length === 0
        ? []
        : await planned<{ id: string; endpoint: string; status: string }[]>()`
      select id, endpoint, status from subscriptions
      where app_id = ${appId} and endpoint = any(${others}::text[])
      order by endpoint for update`;
    const existingByEndpoint = new Map(existing.map((row) => [row.endpoint, row]));

    const needSlot = merged.filter((entry) => {
      const found = existingByEndpoint.get(entry.endpoint);
      return insertedIds.has(entry.endpoint) || (found !== undefined && found.status !== 'active');
    });
    let granted = needSlot.length;
    let total = 0;
    if (needSlot.length > 0) {
      await sql`insert into subscriber_counters (user_id, stripe)
        select ${ownerId}, g from generate_series(0, 15) g on conflict (user_id, stripe) do nothing`;
      const [counted] = await sql<{ total: number }[]>`
        select coalesce(sum(active), 0)::int as total from (
          select active from subscriber_counters where user_id = ${ownerId} order by stripe for update
        ) s`;
      total = counted?.total ?? 0;
      if (maxActive !== null) granted = Math.max(0, Math.min(needSlot.length, maxActive - total));
    }
    const refused = new Set(needSlot.slice(granted).map((entry) => entry.endpoint));

    const refusedInserts = [...refused].flatMap((endpoint) => insertedIds.get(endpoint) ?? []);
    if (refusedInserts.length > 0) await sql`delete from subscriptions where id = any(${refusedInserts}::uuid[])`;
    // Rows that would not change are left alone: a retried import writes nothing.
    const updates = merged.flatMap((entry) => {
      const found = existingByEndpoint.get(entry.endpoint);
      if (!found || refused.has(entry.endpoint)) return [];
      return [
        {
          id: found.id,
          p256dh: entry.p256dh,
          auth: entry.auth,
          uid: entry.uid ?? null,
          uid_given: entry.uidGiven,
          tags: entry.tags ?? null,
          language: entry.language ?? null,
          time_zone: entry.timeZone ?? null,
        },
      ];
    });
    if (updates.length > 0) {
      await planned()`
        update subscriptions s set p256dh = t.p256dh, auth = t.auth,
          uid = case when t.uid_given then t.uid else s.uid end,
          tags = coalesce(t.tags, s.tags), language = coalesce(t.language, s.language),
          time_zone = coalesce(t.time_zone, s.time_zone), vapid_key_version = ${app.version},
          status = 'active', expired_at = null, updated_at = now()
        from json_to_recordset(${JSON.stringify(updates)}::json)
          as t(id uuid, p256dh text, auth text, uid text, uid_given boolean, tags jsonb, language text, time_zone text)
        where s.id = t.id and (s.status <> 'active' or s.vapid_key_version <> ${app.version}
          or (s.p256dh, s.auth) is distinct from (t.p256dh, t.auth)
          or (t.uid_given and s.uid is distinct from t.uid) or (t.tags is not null and s.tags <> t.tags)
          or (t.language is not null and s.language is distinct from t.language)
          or (t.time_zone is not null and s.time_zone is distinct from t.time_zone))`;
    }
    if (granted > 0) await sql`select set_subscriber_count(${ownerId}, ${total + granted})`;

    const outcomeOf = new Map<string, ImportOutcome>();
    for (const entry of merged) {
      outcomeOf.set(
        entry.endpoint,
        refused.has(entry.endpoint) ? 'limit' : insertedIds.has(entry.endpoint) ? 'imported' : 'updated',
      );
    }
    if (audit) {
      // Counts only: the log never holds the subscriptions themselves.
      const imported = inserted.length - refusedInserts.length;
      await recordAuditIn(
        sql,
        { appId },
        {
          ...audit.context,
          action: 'subscribers.imported',
          target: { type: 'app', id: appId },
          details: {
            imported,
            updated: merged.length - imported - refused.size,
            refused: audit.invalid + refused.size,
          },
        },
      );
    }
    return outcomeOf;
  });
  if (outcomes === 'app_gone') return outcomes;
  return entries.map((entry, index) => {
    const outcome = outcomes.get(entry.endpoint) ?? 'updated';
    // A repeated endpoint is an update of what its first entry stored, or refused with it.
    return firstOf[index] === index || outcome === 'limit' ? outcome : 'updated';
  });
}
