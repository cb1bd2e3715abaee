import type { BenchDatabase } from './bench-database.js';
import { waitForQuietMachine } from './cpu-meter.js';
import { EVENT_APP_SUBSCRIPTIONS, eventApp, writeShownEvents } from './event-app.js';
import { percentile } from './measure-accept.js';
import { measureSequentialLatency } from './measure-http.js';
import { median } from './stats.js';

/** `GET …/stats?days=90` of an app with `events` engagement events, against a plain read of the app. */
export interface StatsFigures {
  events: number;
  /** Seconds PostgreSQL took to write them (INSERT … SELECT, batches of 1,000,000). */
  insertSeconds: number;
  /** Rows of `app_day_stats` behind the answer: 90 days × 16 stripes, none folded yet (the worst case). */
  dayRows: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  /** `GET /apps/{appId}` the same way, alternately: the same session check and one row, the floor. */
  baselineP50Ms: number;
  baselineP99Ms: number;
}

export const TARGET_STATS_P99_MS = 5;
const DAYS = 90;
const STRIPES = 16;
const ROUNDS = 3;
/** Measured seconds of each round, after the load client's warm-up second. */
const SECONDS = 4;

/**
 * An account and app made through the API, then `events` `shown` events written straight into
 * `notification_events` (10,000 subscriptions × as many sends as it takes, spread over 90 days) and
 * the 90 days of counts the triggers would have left, each day in all 16 stripes. Then
 * `GET /apps/{appId}/stats?days=90` one request at a time from a client process of its own, in
 * rounds alternating with `GET /apps/{appId}`, each from just before the request to the end of
 * the body. The answer reads `app_day_stats` only:
 * the events are there so that the figure is taken on the database such an app has.
 */
export async function measureStats(
  apiUrl: string,
  database: BenchDatabase,
  events: number,
  say: (text: string) => void,
): Promise<StatsFigures> {
  const { sql } = database.handle;
  const { token, appId, notificationId } = await eventApp(apiUrl, sql, 'stats');

  const started = performance.now();
  // The months the 90 days reach, so that the events land in month partitions, not the default one.
  await sql`select create_notification_event_partitions(0, ${Math.ceil(DAYS / 28)}::int)`;
  // The sends: copies of the one made through the API, completed, spread over the 90 days.
  const sends = Math.ceil(events / EVENT_APP_SUBSCRIPTIONS);
  await sql`insert into notifications
    select (jsonb_populate_record(null::notifications, to_jsonb(n) || jsonb_build_object(
      'id', gen_random_uuid(), 'status', 'completed',
      'created_at', now() - make_interval(days => i % ${DAYS}::int)))).*
    from notifications n, generate_series(1, ${sends}::int) as i where n.id = ${notificationId}`;
  const sendIds = (
    await sql<{ id: string }[]>`select id from notifications where app_id = ${appId} and status = 'completed'`
  ).map((row) => row.id);
  const written = await writeShownEvents(sql, appId, sendIds, events, (written) =>
    say(`  … stats: ${written.toLocaleString('en-US')} of ${events.toLocaleString('en-US')} events written`),
  );
  await sql`insert into app_day_stats (app_id, day, stripe, sent, shown, clicked, subscribed)
    select ${appId}::uuid, (now() at time zone 'UTC')::date - d, s, 700, 600, 60, 7
    from generate_series(0, ${DAYS - 1}::int) as d, generate_series(0, ${STRIPES - 1}::int) as s
    on conflict do nothing`;
  const insertSeconds = (performance.now() - started) / 1000;
  // Writing 10,000,000 rows leaves the machine checkpointing for a while: the figure is of an app
  // whose events are already stored, as when someone opens its overview, not of that aftermath.
  await sql`checkpoint`;
  const quiet = await waitForQuietMachine();
  say(
    `stats: the machine was quiet ${(quiet.waitedMs / 1000).toFixed(0)} s after the writes (${quiet.busyCores.toFixed(2)} cores busy)`,
  );
  const [{ rows } = { rows: 0 }] = await sql<{ rows: number }[]>`
    select count(*)::int as rows from app_day_stats where app_id = ${appId}`;

  const timedGet = async (path: string) => {
    const begun = performance.now();
    const response = await fetch(`${apiUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${body}`);
    return { ms: performance.now() - begun, body };
  };
  const check = JSON.parse((await timedGet(`/apps/${appId}/stats?days=${DAYS}`)).body) as {
    days: { shown: number }[];
  };
  if (check.days.length !== DAYS || check.days[0]?.shown !== 600 * STRIPES) {
    throw new Error(`stats answered ${check.days.length} days, the first with ${check.days[0]?.shown} shown`);
  }
  // One request at a time from a client process of its own (as the accept phase measures), rounds
  // alternating with the baseline route, each client warmed up for a second first.
  const stats: number[] = [];
  const baseline: number[] = [];
  const headers = { authorization: `Bearer ${token}` };
  for (let round = 0; round < ROUNDS; round++) {
    stats.push(
      ...(await measureSequentialLatency(
        {
          url: `${apiUrl}/api/v1/apps/${appId}/stats?days=${DAYS}`,
          method: 'GET',
          headers,
          body: '',
          seconds: SECONDS,
        },
        200,
      )),
    );
    baseline.push(
      ...(await measureSequentialLatency(
        { url: `${apiUrl}/api/v1/apps/${appId}`, method: 'GET', headers, body: '', seconds: SECONDS },
        200,
      )),
    );
  }
  stats.sort((a, b) => a - b);
  baseline.sort((a, b) => a - b);
  const figures: StatsFigures = {
    events: written,
    insertSeconds,
    dayRows: rows,
    requests: stats.length,
    p50Ms: median(stats),
    p99Ms: percentile(stats, 0.99),
    baselineP50Ms: median(baseline),
    baselineP99Ms: percentile(baseline, 0.99),
  };
  say(
    `GET …/stats?days=${DAYS} with ${written.toLocaleString('en-US')} events (${rows} day rows, written in ` +
      `${insertSeconds.toFixed(0)} s): p50 ${figures.p50Ms.toFixed(2)} ms, p99 ${figures.p99Ms.toFixed(2)} ms; ` +
      `GET /apps/{appId} alternately: p50 ${figures.baselineP50Ms.toFixed(2)} ms, p99 ${figures.baselineP99Ms.toFixed(2)} ms`,
  );
  return figures;
}

export function statsVerdict(figures: StatsFigures | null): string {
  const target = `Target GET …/stats?days=90 p99 ≤ ${TARGET_STATS_P99_MS} ms for an app with 10,000,000 events`;
  if (!figures) return `${target}: –  not assessed`;
  return (
    `${target}: p99 ${figures.p99Ms.toFixed(2)} ms (p50 ${figures.p50Ms.toFixed(2)}) with ` +
    `${figures.events.toLocaleString('en-US')} events; GET /apps/{appId} in the same run p99 ${figures.baselineP99Ms.toFixed(2)} ms  ` +
    `${figures.p99Ms <= TARGET_STATS_P99_MS ? 'MET' : 'NOT MET'}`
  );
}
