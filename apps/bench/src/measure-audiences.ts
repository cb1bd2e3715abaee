import { compileSegment, countAudience, countSegment, type SegmentExpression } from '@webpush/db';
import type { BenchApp, BenchDatabase } from './bench-database.js';
import { median } from './stats.js';

/** The figures of the audiences phase : the tag segment's plan and the uids accept latency. */
export interface AudienceFigures {
  /** Subscriptions in the segment (1% of the app's). */
  segment: number;
  countPlanningMs: number;
  countExecutionMs: number;
  keysetPlanningMs: number;
  keysetExecutionMs: number;
  /** True when neither plan has a sequential scan. */
  noSeqScan: boolean;
  /** POST /notify with 1,000 uids, accepted (202), sequential requests. */
  uidsAcceptP50Ms: number;
  uidsAcceptP99Ms: number;
  /** Counting the AND-of-tags audience `{segment: s42, lang: ja}`, median of SEGMENT_RUNS (the baseline). */
  tagsCountMs: number;
  /** Counting the 5-leaf segment expression SEGMENT_EXPRESSION the same way: the target is ≤ 2× the baseline. */
  segmentCountMs: number;
  /** What each counted (the segment matches more: it is an OR). */
  tagsCount: number;
  segmentCount: number;
  /** POST /notify to every subscription of the app (24 zones), plain and with `localTime`, alternately: medians. */
  plainAcceptP50Ms: number;
  localTimeAcceptP50Ms: number;
  acceptTargets: number;
}

const SEGMENTS = 100; // tag `segment` takes 100 values: one of them is a 1% segment
const UID_REQUESTS = 100;
const SEGMENT_RUNS = 7;
const ACCEPT_ROUNDS = 15;
// 24 zones, as many as a worldwide audience spans: one of them (Tokyo) is a leaf of the expression.
const ZONES = [
  'Pacific/Honolulu',
  'America/Anchorage',
  'America/Los_Angeles',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
  'America/Halifax',
  'America/Sao_Paulo',
  'Atlantic/South_Georgia',
  'Atlantic/Azores',
  'Europe/London',
  'Europe/Paris',
  'Europe/Athens',
  'Europe/Moscow',
  'Asia/Dubai',
  'Asia/Karachi',
  'Asia/Dhaka',
  'Asia/Bangkok',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Australia/Brisbane',
  'Pacific/Noumea',
  'Pacific/Auckland',
  'Pacific/Tongatapu',
];

/**
 * Five leaves, as a marketer would write "the 1% segment in Japanese, or segment s7 in Tokyo except
 * English speakers": OR, AND and NOT over tags, language and time zone. It matches about as many
 * subscriptions as the baseline's AND of two tags (the 1% segment), so the two counts compare the
 * expression's cost, not how many rows each finds.
 */
export const SEGMENT_EXPRESSION: SegmentExpression = {
  or: [
    {
      and: [
        { tag: 'segment', equals: 's42' },
        { tag: 'lang', equals: 'ja' },
      ],
    },
    { and: [{ tag: 'segment', equals: 's7' }, { timeZone: 'Asia/Tokyo' }, { not: { language: 'en' } }] },
  ],
};

async function medianMs<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  let value = await work(); // once unmeasured: the plan cache and the buffers warm alike for both
  const times: number[] = [];
  for (let i = 0; i < SEGMENT_RUNS; i++) {
    const started = performance.now();
    value = await work();
    times.push(performance.now() - started);
  }
  return { ms: median(times), value };
}

async function explain(database: BenchDatabase, query: string) {
  const rows = await database.handle.sql.unsafe<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${query}`);
  const text = rows.map((row) => row['QUERY PLAN']).join('\n');
  const ms = (label: string) => Number(new RegExp(`${label}: ([\\d.]+) ms`).exec(text)?.[1] ?? Number.NaN);
  return { text, planningMs: ms('Planning Time'), executionMs: ms('Execution Time') };
}

/**
 * Gives every subscription of `app` a uid (three browsers each) and a `segment` tag, then prints
 * the plans the accept (count) and the fan-out (one keyset page) use for a 1% tag segment, and the
 * accept latency of POST /notify with 1,000 uids. One run: the machine may be shared.
 */
export async function measureAudiences(
  database: BenchDatabase,
  app: BenchApp,
  apiUrl: string,
  say: (text: string) => void,
): Promise<AudienceFigures> {
  const { sql } = database.handle;
  // In statements of 10,000 rows, as imports and subscribes write them: one statement changing the
  // zone of a million rows would make the zone counts' row trigger (migration 0040) update the same
  // few counter rows a million times in one transaction, each update walking the versions before it.
  const [{ n: total } = { n: 0 }] = await sql<{ n: number }[]>`
    select count(*)::int as n from subscriptions where app_id = ${app.id}`;
  const users = Math.max(1, Math.floor(total / 3));
  let last = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await sql<{ id: string }[]>`
      with batch as (
        select id from subscriptions where app_id = ${app.id} and id > ${last}::uuid order by id limit 10000
      )
      update subscriptions s set
        uid = 'user-' || (abs(hashtext(s.endpoint)) % ${users}),
        tags = jsonb_build_object('segment', 's' || (abs(hashtext(s.id::text)) % ${SEGMENTS}), 'lang', 'ja'),
        language = (array['ja', 'en', 'en-US', 'fr'])[1 + abs(hashtext(s.endpoint || 'l')) % 4],
        time_zone = (${ZONES}::text[])[1 + abs(hashtext(s.endpoint || 'z')) % ${ZONES.length}]
      from batch where s.id = batch.id
      returning s.id`;
    if (rows.length === 0) break;
    // The batch's greatest id (uuids in their text form sort as the index does).
    last =
      rows
        .map((row) => row.id)
        .sort()
        .at(-1) ?? last;
  }
  // No manual ANALYZE: the service runs on whatever statistics autovacuum has gathered, none at all
  // where it is off (as on the bench machine) or has not come yet; the bench measures that case.
  const [stats] = await sql<{ analyzed: Date | null; autovacuum: string }[]>`
    select greatest(last_analyze, last_autoanalyze) as analyzed, current_setting('autovacuum') as autovacuum
    from pg_stat_user_tables where relname = 'subscriptions'`;
  say(
    `statistics of subscriptions: ${stats?.analyzed ? `analyzed ${stats.analyzed.toISOString()}` : 'never analyzed'} ` +
      `(autovacuum ${stats?.autovacuum ?? '?'}); no ANALYZE is run for these figures`,
  );
  const [segmentRow] = await sql`select count(*)::int as n from subscriptions
    where app_id = ${app.id} and status = 'active' and tags @> '{"segment":"s42"}'`;
  const segment = Number(segmentRow?.n ?? 0);

  // As the service writes it (audienceFilter): `tags <> '{}'` lets the partial tags index serve it.
  const where = `app_id = '${app.id}' and status = 'active' and tags @> '{"segment":"s42"}'::jsonb and tags <> '{}'::jsonb`;
  const count = await explain(database, `select count(*) from subscriptions where ${where}`);
  const keyset = await explain(
    database,
    `select id from subscriptions where ${where} and id > '80000000-0000-0000-0000-000000000000' order by id limit 500`,
  );
  say(`tag segment of ${segment}: count plan (accept), planning ${count.planningMs} ms\n${count.text}`);
  say(`tag segment: keyset page plan (fan-out), planning ${keyset.planningMs} ms\n${keyset.text}`);

  // Segments against today's AND of tags, through the service's own count functions (what
  // POST /notify and POST …/segments/count run), on the same rows, the same connection, alternately warm.
  const { db } = database.handle;
  const tags = await medianMs(() =>
    countAudience(db, app.id, {
      targetKind: 'tags',
      targetTags: { segment: 's42', lang: 'ja' },
      targetUids: null,
      targetSegment: null,
    }),
  );
  const expression = await medianMs(() => countSegment(db, app.id, SEGMENT_EXPRESSION));
  // The statement countSegment sends, with its values inlined for EXPLAIN (all are quoted literals).
  const compiled = compileSegment(SEGMENT_EXPRESSION);
  const literal = (value: unknown) =>
    Array.isArray(value)
      ? `array[${value.map((item) => `'${String(item).replaceAll("'", "''")}'`).join(', ')}]`
      : `'${String(value).replaceAll("'", "''")}'`;
  const condition = compiled.strings
    .map((part, i) => (i === 0 ? part : literal(compiled.values[i - 1]) + part))
    .join('');
  const segmentPlan = await explain(
    database,
    `select count(*)::int as n from subscriptions s where s.app_id = '${app.id}'::uuid and s.status = 'active' and ${condition}`,
  );
  say(`segment ${JSON.stringify(SEGMENT_EXPRESSION)} compiles to\n  ${condition}\ncount plan:\n${segmentPlan.text}`);
  say(
    `segments: counting a 5-leaf OR/AND/NOT expression ${expression.ms.toFixed(1)} ms (${expression.value} matched) ` +
      `vs the AND of two tags ${tags.ms.toFixed(1)} ms (${tags.value}): ${(expression.ms / tags.ms).toFixed(2)}× (target ≤ 2×)`,
  );

  const uids = Array.from({ length: 1_000 }, (_, i) => `user-${i * 7}`);
  const body = JSON.stringify({ title: 'Bench', body: 'uids', uids });
  const latencies: number[] = [];
  for (let i = 0; i < UID_REQUESTS; i++) {
    const started = performance.now();
    const response = await fetch(`${apiUrl}/api/v1/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.secret}`, 'content-type': 'application/json' },
      body,
    });
    await response.arrayBuffer();
    if (response.status !== 202) throw new Error(`POST /notify with uids: ${response.status}`);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);

  // A local-time send against a plain one to the same subscriptions (over 24 zones), alternately:
  // the accept counts the audience and, for localTime, plans one release per zone.
  const plainMs: number[] = [];
  const localMs: number[] = [];
  let acceptTargets = 0;
  const timedNotify = async (extra: Record<string, unknown>) => {
    const started = performance.now();
    const response = await fetch(`${apiUrl}/api/v1/notify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bench', body: 'everyone', ...extra }),
    });
    const answer = (await response.json()) as { notification?: { id: string; targets: number } };
    const ms = performance.now() - started;
    if (response.status !== 202 || !answer.notification)
      throw new Error(`POST /notify ${JSON.stringify(extra)}: ${response.status}`);
    acceptTargets = answer.notification.targets;
    return { ms, id: answer.notification.id };
  };
  const accepted: string[] = [];
  for (let i = 0; i < ACCEPT_ROUNDS; i++) {
    const plain = await timedNotify({});
    const local = await timedNotify({ localTime: '09:00' });
    plainMs.push(plain.ms);
    localMs.push(local.ms);
    accepted.push(plain.id, local.id);
  }
  // Not to be sent: no worker runs in this phase, and none after it.
  await sql`update notifications set status = 'canceled' where id = any(${accepted}::uuid[])`;
  say(
    `POST /notify to all ${acceptTargets.toLocaleString('en-US')} subscriptions over ${ZONES.length} zones, ${ACCEPT_ROUNDS} of each alternately: ` +
      `plain p50 ${median(plainMs).toFixed(1)} ms, localTime p50 ${median(localMs).toFixed(1)} ms`,
  );
  const p99 = latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * 0.99) - 1)] ?? Number.NaN;
  const figures: AudienceFigures = {
    segment,
    countPlanningMs: count.planningMs,
    countExecutionMs: count.executionMs,
    keysetPlanningMs: keyset.planningMs,
    keysetExecutionMs: keyset.executionMs,
    noSeqScan: !/Seq Scan/.test(count.text + keyset.text),
    uidsAcceptP50Ms: median(latencies),
    uidsAcceptP99Ms: p99,
    tagsCountMs: tags.ms,
    segmentCountMs: expression.ms,
    tagsCount: tags.value,
    segmentCount: expression.value,
    plainAcceptP50Ms: median(plainMs),
    localTimeAcceptP50Ms: median(localMs),
    acceptTargets,
  };
  say(
    `POST /notify with 1,000 uids (${UID_REQUESTS} sequential requests): ` +
      `p50 ${figures.uidsAcceptP50Ms.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; seq scan in the tag plans: ${!figures.noSeqScan}`,
  );
  return figures;
}
