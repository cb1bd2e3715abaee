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
}

const SEGMENTS = 100; // tag `segment` takes 100 values: one of them is a 1% segment
const UID_REQUESTS = 100;

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
  await sql`update subscriptions set
      uid = 'user-' || (abs(hashtext(endpoint)) % greatest(1, (select count(*) from subscriptions where app_id = ${app.id}) / 3)),
      tags = jsonb_build_object('segment', 's' || (abs(hashtext(id::text)) % ${SEGMENTS}), 'lang', 'ja')
    where app_id = ${app.id}`;
  await sql`vacuum analyze subscriptions`;
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
  };
  say(
    `POST /notify with 1,000 uids (${UID_REQUESTS} sequential requests): ` +
      `p50 ${figures.uidsAcceptP50Ms.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms; seq scan in the tag plans: ${!figures.noSeqScan}`,
  );
  return figures;
}
