import { createDatabase, decodeCursor, listNotifications, listSubscriptions, schema } from '@webpush/db';
import { createIsolatedResources } from '@webpush/testing';
import { drizzle } from 'drizzle-orm/postgres-js';
import t, { type Test } from 'tap';

// Keyset pagination must cost the same on page 500 as on page 1: the list queries of the dashboard
// (migration 0003's indexes) are index range scans under a Limit, never a Sort of the whole app or
// a Seq Scan. Checked with EXPLAIN on the exact SQL the repository functions send, with thousands
// of rows in two apps and fresh statistics.
const resources = await createIsolatedResources();
const handle = createDatabase(resources.databaseUrl, { max: 2 });
t.teardown(async () => {
  await handle.close();
  await resources.dispose();
});
const { sql } = handle;

// A drizzle instance that records the statements it sends, over the same connection pool.
const sent: { query: string; params: unknown[] }[] = [];
const recorded = drizzle(sql, { schema, logger: { logQuery: (query, params) => sent.push({ query, params }) } });

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

async function planOf(run: () => Promise<unknown>) {
  sent.length = 0;
  await run();
  const statement = sent.at(-1);
  if (!statement) throw new Error('no statement was recorded');
  const [row] = await sql.unsafe(`explain (format json) ${statement.query}`, statement.params as never[]);
  const plan = (row?.['QUERY PLAN'] as { Plan: PlanNode }[] | undefined)?.[0]?.Plan;
  if (!plan) throw new Error('no plan');
  return nodes(plan);
}

const [user] = await sql`insert into users (email) values ('plan@example.com') returning id`;
const appIds: string[] = [];
for (const name of ['A', 'B']) {
  const [row] = await sql`insert into apps (user_id, name, vapid_public_key, vapid_private_key_sealed)
    values (${user?.id}, ${name}, 'k', 's') returning id`;
  appIds.push(row?.id as string);
}
const appId: string = appIds[0] ?? '';
if (!appId) throw new Error('no app');
for (const id of appIds) {
  await sql`insert into notifications (app_id, payload, ttl, urgency, target_kind, status, targets, created_at)
    select ${id}, '{"title":"T","body":"B"}', 60, 'normal', 'all', 'completed', 1,
      now() - i * interval '1 second'
    from generate_series(1, 5000) as i`;
  await sql`insert into subscriptions (app_id, endpoint, p256dh, auth, status, created_at)
    select ${id}, 'https://fcm.googleapis.com/fcm/send/' || ${id}::text || '-' || i, 'p', 'a',
      case when i % 4 = 0 then 'expired' else 'active' end, now() - i * interval '1 second'
    from generate_series(1, 5000) as i`;
}
await sql`analyze notifications`;
await sql`analyze subscriptions`;

/** The position of row `n` (newest first) of the app: where page n/limit starts. */
async function positionAt(table: 'notifications' | 'subscriptions', n: number) {
  const [row] = await sql.unsafe(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id::text as id
     from ${table} where app_id = $1 order by created_at desc, id desc offset $2 limit 1`,
    [appId, n],
  );
  const cursor = Buffer.from(`${row?.at}|${row?.id}`).toString('base64url');
  const position = decodeCursor(cursor);
  if (!position) throw new Error('the position does not round-trip through a cursor');
  return position;
}

/** An index and, for a partitioned table's index, its copy in each partition (migration 0044). */
async function withPartitions(index: string) {
  const copies = await sql<{ name: string }[]>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid where i.inhparent = ${index}::regclass`;
  return [index, ...copies.map((row) => row.name)];
}

function assertIndexRangeScan(t: Test, plan: PlanNode[], ...indexes: string[]) {
  const types = plan.map((node) => node['Node Type']);
  t.equal(types[0], 'Limit', 'a Limit on top');
  t.notOk(types.includes('Sort'), `no Sort (${types.join(' → ')})`);
  t.notOk(types.includes('Seq Scan'), 'no Seq Scan');
  t.ok(
    plan.some((node) => node['Node Type'].startsWith('Index') && indexes.includes(node['Index Name'] ?? '')),
    `an index scan on ${indexes[0]}${indexes.length > 1 ? ` (or ${indexes.slice(1).join(', ')})` : ''}`,
  );
}

t.test('the notification history reads page 50 from notifications_app_created_idx', async (t) => {
  const after = await positionAt('notifications', 1_000);
  const plan = await planOf(() => listNotifications(recorded, appId, { limit: 20, after }));
  const indexes = await withPartitions('notifications_app_created_idx');
  assertIndexRangeScan(t, plan, ...indexes);
  const first = await planOf(() => listNotifications(recorded, appId, { limit: 20, after: null }));
  assertIndexRangeScan(t, first, ...indexes);
});

t.test('the subscriber list reads a deep page from its index, with and without a status', async (t) => {
  const after = await positionAt('subscriptions', 2_000);
  const all = await planOf(() => listSubscriptions(recorded, appId, { limit: 20, after, status: null }));
  assertIndexRangeScan(t, all, 'subscriptions_app_created_idx');
  for (const status of ['active', 'expired'] as const) {
    const filtered = await planOf(() => listSubscriptions(recorded, appId, { limit: 20, after, status }));
    // A common status (most subscribers are active) may be read from the unfiltered index with a filter:
    // it stops after about limit / share rows either way.
    assertIndexRangeScan(t, filtered, 'subscriptions_app_status_created_idx', 'subscriptions_app_created_idx');
  }
});
