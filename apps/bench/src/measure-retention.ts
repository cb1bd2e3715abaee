import { retentionStatements } from '@webpush/db';
import type { BenchDatabase } from './bench-database.js';
import { waitForQuietMachine } from './cpu-meter.js';
import { EVENT_APP_SUBSCRIPTIONS, eventApp, writeShownEvents } from './event-app.js';

/** Retention of a month of engagement events: the drop of its partition against deleting rows. */
export interface RetentionFigures {
  /** Event rows of the month dropped. */
  events: number;
  /** Seconds PostgreSQL took to write them (INSERT … SELECT, batches of 1,000,000). */
  insertSeconds: number;
  /** Statement time of the retention's drop of that month's partition, ms. */
  dropMs: number;
  /** Rows the baseline deleted, a batch at a time, with the retention statement for rows. */
  baselineRows: number;
  /** Statement time of the baseline, ms, all batches together. */
  baselineMs: number;
  baselineBatch: number;
  /** The baseline's time for as many rows as the month holds, at its rate, s. */
  baselineExtrapolatedSeconds: number;
}

export const TARGET_RETENTION_DROP_MS = 1_000;
/** How old the month is: its partition ended more than `RETENTION_DAYS` (90) ago. */
const MONTHS_BACK = 5;
const RETENTION_DAYS = 90;
const BASELINE_ROWS = 100_000;
const BASELINE_BATCH = 5_000;

/**
 * An account and app made through the API, then `events` `shown` events written straight into
 * `notification_events` for completed sends created in one month five months back (10,000
 * subscriptions × as many sends as it takes), into that month's partition, and 100,000 more for ten
 * other sends of the same month. The baseline deletes those 100,000 the way retention deletes rows
 * no partition drop covers (`retentionStatements.events`, batches of 5,000, the default
 * RETENTION_BATCH), timed statement by statement; then the retention's drop of the month
 * (`drop_expired_notification_partition`, what the worker's pass runs: the month of the notifications,
 * their chunks, answers, groups and events) is timed, after a
 * checkpoint on a quiet machine, and the partition is checked gone.
 */
export async function measureRetention(
  apiUrl: string,
  database: BenchDatabase,
  events: number,
  say: (text: string) => void,
): Promise<RetentionFigures> {
  const { sql } = database.handle;
  const { appId, notificationId } = await eventApp(apiUrl, sql, 'retention');

  const started = performance.now();
  await sql`select create_notification_event_partitions(0, ${MONTHS_BACK}::int)`;
  const [month] = await sql<{ name: string; lower: Date }[]>`
    select name, lower from notification_event_partitions()
    where lower = (date_trunc('month', now() at time zone 'UTC') - make_interval(months => ${MONTHS_BACK}::int))
      at time zone 'UTC'`;
  if (!month) throw new Error(`retention: no partition ${MONTHS_BACK} months back`);
  // The sends: copies of the one made through the API, completed, created on the month's days.
  const sends = Math.ceil(events / EVENT_APP_SUBSCRIPTIONS);
  const baselineSends = Math.ceil(BASELINE_ROWS / EVENT_APP_SUBSCRIPTIONS);
  await sql`insert into notifications
    select (jsonb_populate_record(null::notifications, to_jsonb(n) || jsonb_build_object(
      'id', gen_random_uuid(), 'status', 'completed',
      'created_at', ${month.lower}::timestamptz + make_interval(days => i % 28, secs => i)))).*
    from notifications n, generate_series(1, ${sends + baselineSends}::int) as i where n.id = ${notificationId}`;
  const sendIds = (
    await sql<{ id: string }[]>`select id from notifications where app_id = ${appId} and status = 'completed'
      order by created_at`
  ).map((row) => row.id);
  const baselineIds = sendIds.slice(0, baselineSends);
  const monthIds = sendIds.slice(baselineSends);
  const write = (ids: string[], total: number, label: string) =>
    writeShownEvents(sql, appId, ids, total, (written) =>
      say(`  … retention: ${written.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} ${label} written`),
    );
  const baselineRows = await write(baselineIds, BASELINE_ROWS, 'baseline events');
  const written = await write(monthIds, events, 'events');
  const insertSeconds = (performance.now() - started) / 1000;
  // What autovacuum's insert threshold would do after such writes (hint bits set, pages all-visible),
  // without the statistics an ANALYZE would add: the bench runs none.
  await sql`vacuum notification_events`;
  await sql`checkpoint`;
  const quiet = await waitForQuietMachine();
  say(
    `retention: the machine was quiet ${(quiet.waitedMs / 1000).toFixed(0)} s after the writes (${quiet.busyCores.toFixed(2)} cores busy)`,
  );

  // Baseline: the rows of ten sends deleted a batch at a time, as retention deletes rows.
  let baselineMs = 0;
  let deleted = 0;
  for (;;) {
    const begun = performance.now();
    const result = await sql.unsafe(retentionStatements.events, [baselineIds, [appId], BASELINE_BATCH] as never[], {
      prepare: true,
    });
    baselineMs += performance.now() - begun;
    deleted += result.count;
    if (result.count < BASELINE_BATCH) break;
  }
  if (deleted !== baselineRows) throw new Error(`retention: the baseline deleted ${deleted} of ${baselineRows} rows`);
  await sql`checkpoint`;
  await waitForQuietMachine();

  // The statement the retention pass runs; it drops the oldest month due, this one.
  const begun = performance.now();
  const [dropped] = await sql.unsafe(retentionStatements.partition, [RETENTION_DAYS]);
  const dropMs = performance.now() - begun;
  // The month of all five tables goes at once; the function names the notifications' partition.
  const notificationsMonth = month.name.replace('notification_events_', 'notifications_');
  const [left] = await sql<{ n: number }[]>`select count(*)::int as n from pg_class
    where relname in (${month.name}, ${notificationsMonth})`;
  if (dropped?.name !== notificationsMonth || left?.n !== 0) {
    throw new Error(`retention: ${month.name} was not dropped (${String(dropped?.name)})`);
  }

  const figures: RetentionFigures = {
    events: written,
    insertSeconds,
    dropMs,
    baselineRows: deleted,
    baselineMs,
    baselineBatch: BASELINE_BATCH,
    baselineExtrapolatedSeconds: ((baselineMs / deleted) * written) / 1000,
  };
  say(
    `retention of a month of ${written.toLocaleString('en-US')} events (written in ${insertSeconds.toFixed(0)} s): ` +
      `partition dropped in ${dropMs.toFixed(1)} ms; deleting rows in batches of ${BASELINE_BATCH}: ` +
      `${deleted.toLocaleString('en-US')} rows in ${baselineMs.toFixed(0)} ms, ` +
      `${figures.baselineExtrapolatedSeconds.toFixed(1)} s for the month at that rate`,
  );
  return figures;
}

export function retentionVerdict(figures: RetentionFigures | null): string {
  const target = `Target retention of a month of 10,000,000 events ≤ ${TARGET_RETENTION_DROP_MS} ms of statement time`;
  if (!figures) return `${target}: –  not assessed`;
  return (
    `${target}: ${figures.dropMs.toFixed(1)} ms for ${figures.events.toLocaleString('en-US')} events; deleting rows ` +
    `in batches of ${figures.baselineBatch} in the same run: ${figures.baselineExtrapolatedSeconds.toFixed(1)} s at ` +
    `its rate over ${figures.baselineRows.toLocaleString('en-US')} rows  ` +
    `${figures.dropMs <= TARGET_RETENTION_DROP_MS ? 'MET' : 'NOT MET'}`
  );
}
