import type { Readable } from 'node:stream';
import type { Database } from '../client.js';
import type { SubscriptionTags } from '../schema.js';

/** Rows fetched per round trip of a cursor: large enough to stream fast, small enough to hold. */
const CURSOR_BATCH = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CsvExport {
  /**
   * The file as PostgreSQL writes it (`COPY … TO STDOUT (FORMAT csv, HEADER)`): records end with LF,
   * a field holding a comma, a quote, CR or LF is quoted, a null is an empty field. It pauses the
   * connection while it is not read, so it holds a batch of bytes at a time whatever the app's size.
   */
  stream: Readable;
  /**
   * Stops the export (the reader went away): cancels the statement and reads what is still on its
   * way, so the connection is free again; the stream then ends with the cancellation's error.
   */
  cancel(): void;
}

/**
 * Every subscription of the app as CSV, oldest first (`id,endpoint,status,uid,tags,language,
 * timeZone,createdAt`; tags as JSON, dates ISO 8601 in UTC), written by PostgreSQL itself. Rows
 * never become JavaScript objects: a cursor read the same million rows into objects whose garbage
 * grew the process by ~200 MB before the old generation was collected (docs/performance.md); this
 * passes bytes. The order is the backward scan of the `(app_id, created_at desc, id desc)` index: no
 * sort. COPY takes no parameters, so the app id is checked to be a UUID before it is put
 * into the statement.
 */
export async function exportSubscriptionsCsv(db: Database, appId: string): Promise<CsvExport> {
  if (!UUID.test(appId)) throw new Error('exportSubscriptionsCsv: the app id is not a UUID');
  const sql = db.$client;
  const query = sql.unsafe(
    `copy (select id, endpoint, status, uid, tags, language, time_zone as "timeZone",
        to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt"
      from subscriptions where app_id = '${appId.toLowerCase()}'
      order by created_at, id) to stdout with (format csv, header true)`,
  );
  const stream = (await query.readable()) as Readable;
  return {
    stream,
    cancel() {
      // Flowing with no reader: what is in flight is dropped, and the connection reads the
      // cancellation's answer (a paused stream would leave it waiting forever).
      stream.resume();
      query.cancel();
    },
  };
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
 * The app's active subscriptions with their keys, oldest first, in batches from one cursor (see
 * `exportSubscriptionsCsv`'s order), each with the VAPID public key it was made with.
 */
export async function* exportSubscriptionKeys(
  db: Database,
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
