import postgres from 'postgres';
import type { Database } from '../client.js';
import type { SubscriptionStatus, SubscriptionTags } from '../schema.js';

/**
 * What an export reads through: the postgres.js handle alone. An export running on a thread of its
 * own (the API's subscriber export) opens one with `openExportConnection`, without drizzle or the
 * schema, which that thread's small heap would otherwise have to hold; a `Database` is one too.
 */
export type ExportSource = Pick<Database, '$client'>;

/** `application_name` of an export's own connection: it shows in `pg_stat_activity` as what it is. */
export const EXPORT_APPLICATION_NAME = 'webpush subscriber export';

/**
 * One connection of its own for one export (the cursor holds it for as long as the client reads).
 * `close` ends it; a thread that is terminated instead closes its socket, and the server, waiting for
 * the cursor's next fetch, ends the session.
 */
export function openExportConnection(url: string): { source: ExportSource; close(): Promise<void> } {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: EXPORT_APPLICATION_NAME } });
  return { source: { $client: sql }, close: () => sql.end({ timeout: 5 }) };
}

/** Rows fetched per round trip of an export's cursor: large enough to stream fast, small enough to hold. */
const CURSOR_BATCH = 500;

export interface ExportedSubscription {
  id: string;
  endpoint: string;
  status: SubscriptionStatus;
  uid: string | null;
  tags: SubscriptionTags;
  language: string | null;
  timeZone: string | null;
  /** ISO 8601 in UTC with milliseconds, as the API's JSON dates are. */
  createdAt: string;
}

export interface ExportedSubscriptionWithKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
  uid: string | null;
  tags: SubscriptionTags;
  createdAt: string;
  /** The VAPID public key it was made with; null once that retired key was deleted. */
  vapidPublicKey: string | null;
}

/**
 * Every subscription of the app, oldest first, in batches read from one cursor: the export holds a
 * batch at a time whatever the app's size (the caller must consume a batch before the next is read).
 * The order is the backward scan of the `(app_id, created_at desc, id desc)` index: no sort.
 */
export function exportSubscriptions(db: ExportSource, appId: string): AsyncIterable<ExportedSubscription[]> {
  const sql = db.$client;
  return sql<ExportedSubscription[]>`
    select id, endpoint, status, uid, tags, language, time_zone as "timeZone",
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"
    from subscriptions where app_id = ${appId}
    order by created_at, id`.cursor(CURSOR_BATCH);
}

/**
 * The app's active subscriptions with their keys, oldest first, in batches from one cursor (see
 * `exportSubscriptions`), each with the VAPID public key it was made with.
 */
export async function* exportSubscriptionKeys(
  db: ExportSource,
  appId: string,
): AsyncGenerator<ExportedSubscriptionWithKeys[]> {
  const sql = db.$client;
  // A handful of keys per app (the current one and those retired but still used): read once.
  const keys = await sql<{ version: number; publicKey: string }[]>`
    select vapid_key_version as version, vapid_public_key as "publicKey" from apps where id = ${appId}
    union all
    select version, public_key from retired_vapid_keys where app_id = ${appId}`;
  const keyOf = new Map(keys.map((key) => [key.version, key.publicKey]));
  const cursor = sql<(Omit<ExportedSubscriptionWithKeys, 'vapidPublicKey'> & { version: number })[]>`
    select endpoint, p256dh, auth, uid, tags, vapid_key_version as version,
      to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"
    from subscriptions where app_id = ${appId} and status = 'active'
    order by created_at, id`.cursor(CURSOR_BATCH);
  for await (const rows of cursor) {
    yield rows.map(({ version, ...row }) => ({ ...row, vapidPublicKey: keyOf.get(version) ?? null }));
  }
}
