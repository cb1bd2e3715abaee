import { randomBytes } from 'node:crypto';
import type { BenchDatabase } from './bench-database.js';
import { waitForQuietMachine } from './cpu-meter.js';
import { call, percentile } from './measure-accept.js';
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
const SUBSCRIPTIONS = 10_000;
const EVENTS_BATCH = 1_000_000;
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
  const email = `bench-stats-${randomBytes(4).toString('hex')}@example.com`;
  const { token } = await call<{ token: string }>(
    apiUrl,
    '/auth/register',
    null,
    { email, password: 'bench stats password' },
    201,
  );
  const { app } = await call<{ app: { id: string } }>(apiUrl, '/apps', token, { name: 'bench stats' }, 201);
  const sendAt = new Date(Date.now() + 86_400_000).toISOString();
  const { notification } = await call<{ notification: { id: string } }>(
    apiUrl,
    `/apps/${app.id}/notifications`,
    token,
    { title: 'Bench', body: 'stats', sendAt },
    202,
  );

  const started = performance.now();
  // The months the 90 days reach, so that the events land in month partitions, not the default one.
  await sql`select create_notification_event_partitions(0, ${Math.ceil(DAYS / 28)}::int)`;
  await sql`insert into subscriptions (app_id, endpoint, p256dh, auth)
    select ${app.id}::uuid, 'https://stats.bench.invalid/push/' || n, 'p256dh-' || n, 'auth-' || n
    from generate_series(1, ${SUBSCRIPTIONS}::int) as n`;
  // The sends: copies of the one made through the API, completed, spread over the 90 days.
  const sends = Math.ceil(events / SUBSCRIPTIONS);
  await sql`update notifications set status = 'canceled' where id = ${notification.id}`;
  await sql`insert into notifications
    select (jsonb_populate_record(null::notifications, to_jsonb(n) || jsonb_build_object(
      'id', gen_random_uuid(), 'status', 'completed',
      'created_at', now() - make_interval(days => i % ${DAYS}::int)))).*
    from notifications n, generate_series(1, ${sends}::int) as i where n.id = ${notification.id}`;
  const sendIds = (
    await sql<{ id: string }[]>`select id from notifications where app_id = ${app.id} and status = 'completed'`
  ).map((row) => row.id);
  const perBatch = Math.max(1, Math.floor(EVENTS_BATCH / SUBSCRIPTIONS));
  let written = 0;
  for (let first = 0; first < sendIds.length && written < events; first += perBatch) {
    const batch = sendIds.slice(first, first + perBatch);
    const limit = Math.min(events - written, batch.length * SUBSCRIPTIONS);
    const result = await sql`insert into notification_events (notification_id, subscription_id, type, created_at,
        app_id, notification_created_at)
      select n.id, s.id, 'shown', n.created_at, n.app_id, n.created_at
      from notifications n cross join subscriptions s
      where n.id = any(${batch}::uuid[]) and s.app_id = ${app.id}
      limit ${limit}`;
    written += result.count;
    say(`  … stats: ${written.toLocaleString('en-US')} of ${events.toLocaleString('en-US')} events written`);
  }
  await sql`insert into app_day_stats (app_id, day, stripe, sent, shown, clicked, subscribed)
    select ${app.id}::uuid, (now() at time zone 'UTC')::date - d, s, 700, 600, 60, 7
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
    select count(*)::int as rows from app_day_stats where app_id = ${app.id}`;

  const timedGet = async (path: string) => {
    const begun = performance.now();
    const response = await fetch(`${apiUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${body}`);
    return { ms: performance.now() - begun, body };
  };
  const check = JSON.parse((await timedGet(`/apps/${app.id}/stats?days=${DAYS}`)).body) as {
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
          url: `${apiUrl}/api/v1/apps/${app.id}/stats?days=${DAYS}`,
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
        { url: `${apiUrl}/api/v1/apps/${app.id}`, method: 'GET', headers, body: '', seconds: SECONDS },
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
