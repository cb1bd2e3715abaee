// Every statement that finds a subscription by (app_id, endpoint) must reach it through the unique
// index `subscriptions_app_endpoint_key`, also on a database nothing has analyzed yet (a new one
// before autovacuum's first ANALYZE, or any with autovacuum off). postgres.js prepares named
// statements, and after 5 executions PostgreSQL may cache a generic plan for the connection; made
// while the table was new and empty, such a plan can use `(app_id, status, created_at)` with the
// endpoint as a filter, reading every row of the app on each look-up from then on.
//
// Each statement runs 10 times here on a new, never-analyzed table, through the repository
// functions on one connection (so its prepared statements are those reused); then the app grows to
// a few thousand rows, still without ANALYZE, and each runs once more. auto_explain reports the plan
// each execution used, as a notice on the connection.
import { randomBytes } from 'node:crypto';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import t from 'tap';
import type { Database } from '../src/client.js';
import {
  countEngagementEvents,
  createSubscribeBatcher,
  deleteSubscription,
  findSubscriptionsByEndpoints,
  updateSubscriptionAudience,
  upsertSubscription,
} from '../src/index.js';
import * as schema from '../src/schema.js';

t.test('each look-up by (app_id, endpoint) uses the unique index without statistics', async (t) => {
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!template) throw new Error('TEST_TEMPLATE_DATABASE is not set: run the tests with `pnpm test`');
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const databaseName = `wp_test_${process.env.TEST_RUN_ID ?? 'adhoc'}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${databaseName}`;

  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${databaseName}" TEMPLATE "${template}"`);
  const plans: string[] = [];
  const sql = postgres(databaseUrl.toString(), {
    max: 1,
    onnotice: (notice) => {
      if (typeof notice.message === 'string' && notice.message.includes('Query Text:')) plans.push(notice.message);
    },
  });
  const db = drizzle(sql, { schema }) as unknown as Database;
  t.teardown(async () => {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    await admin.end({ timeout: 5 });
  });

  const [never] = await sql<{ analyzed: boolean }[]>`
    select coalesce(last_analyze, last_autoanalyze) is not null as analyzed
    from pg_stat_user_tables where relname = 'subscriptions'`;
  t.equal(never?.analyzed, false, 'the subscriptions table has never been analyzed');

  await sql.unsafe(`load 'auto_explain'`);
  await sql.unsafe(`set auto_explain.log_min_duration = 0`);
  await sql.unsafe(`set auto_explain.log_level = notice`);

  const [user] = await sql<{ id: string }[]>`insert into users (email) values ('plans@example.com') returning id`;
  const [app] = await sql<{ id: string }[]>`
    insert into apps (user_id, name, vapid_public_key, vapid_private_key_sealed)
    values (${user?.id ?? ''}, 'plans', 'public', 'sealed') returning id`;
  const ownerId = user?.id ?? '';
  const appId = app?.id ?? '';

  let next = 0;
  const keys = (endpoint = `https://push.example.com/${++next}`) => ({ endpoint, p256dh: 'p256dh', auth: 'auth' });
  const admit = { admitNew: async () => true };
  const batcher = createSubscribeBatcher(db);

  /** Each statement that looks a subscription up by (app_id, endpoint), run once through the real code. */
  const statements: Record<string, (run: number) => Promise<unknown>> = {
    // The per-app cap on: the look-up before asking the cap, then the insert, for a new endpoint.
    'subscribe with the per-app cap, new endpoint': () => upsertSubscription(db, ownerId, appId, keys(), null, admit),
    // The cap on, a known endpoint: the look-up finds it, then the update.
    'subscribe with the per-app cap, known endpoint': (run) =>
      upsertSubscription(db, ownerId, appId, keys(`https://push.example.com/known-${run}`), null, admit),
    // The cap off (the default): the insert finds the known endpoint itself.
    're-subscribe': (run) =>
      upsertSubscription(db, ownerId, appId, keys(`https://push.example.com/known-${run}`), null),
    'subscribes stored together': (run) =>
      Promise.all([
        batcher.subscribe({ ownerId, appId, keys: keys(), maxActive: null }),
        batcher.subscribe({ ownerId, appId, keys: keys(`https://push.example.com/known-${run}`), maxActive: null }),
      ]),
    // The cap on, subscribes arriving together: one look-up for all, then the admitted ones inserted together.
    'capped subscribes stored together': (run) =>
      Promise.all([
        batcher.subscribe({ ownerId, appId, keys: keys(), maxActive: null, ...admit }),
        batcher.subscribe({
          ownerId,
          appId,
          keys: keys(`https://push.example.com/known-${run}`),
          maxActive: null,
          ...admit,
        }),
      ]),
    'DELETE /subscribe': (run) => deleteSubscription(db, appId, `https://push.example.com/gone-${run}`),
    'PATCH /subscribe': (run) =>
      updateSubscriptionAudience(db, appId, `https://push.example.com/known-${run}`, { uid: `uid-${run}` }),
    'a send to endpoints': (run) => findSubscriptionsByEndpoints(db, appId, [`https://push.example.com/known-${run}`]),
    'an engagement event by endpoint': (run) =>
      countEngagementEvents(db, [
        {
          notificationId: '00000000-0000-7000-8000-000000000000',
          appId,
          endpoint: `https://push.example.com/known-${run}`,
          type: 'shown',
        },
      ]),
  };

  /**
   * What auto_explain reported while `run` ran, for each statement that reads `subscriptions`: the
   * start of its text, then each way its plan reads `subscriptions` with that read's conditions.
   */
  async function plansOf(run: () => Promise<unknown>): Promise<string[]> {
    plans.length = 0;
    await run();
    return plans.flatMap((plan) => {
      const lines = plan.split('\n');
      const start = lines.findIndex((line) => /\(cost=/.test(line));
      const text = lines
        .slice(0, start)
        .join(' ')
        .replace(/.*Query Text:/, '')
        .replace(/\s+/g, ' ')
        .trim();
      const reads = lines.flatMap((line, index) => {
        if (!/ on subscriptions\b|Conflict Arbiter Indexes: subscriptions/.test(line)) return [];
        const conditions = lines.slice(index + 1).filter((next, offset) => offset < 2 && /(Cond|Filter):/.test(next));
        return [line.replace(/\s*\(cost=.*\)/, '').trim(), ...conditions.map((next) => `  ${next.trim()}`)];
      });
      return reads.length === 0 ? [] : [`${text.slice(0, 90)}…\n${reads.join('\n')}`];
    });
  }

  // The endpoints re-subscribed, patched and deleted exist, so each statement finds what it looks for.
  for (let run = 0; run <= 10; run++) {
    await upsertSubscription(db, ownerId, appId, keys(`https://push.example.com/known-${run}`), null);
    await upsertSubscription(db, ownerId, appId, keys(`https://push.example.com/gone-${run}`), null);
  }

  for (let run = 0; run < 10; run++) {
    for (const statement of Object.values(statements)) await statement(run);
  }

  // The app grows, with nothing analyzing the table: a statement planned again sees its size.
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth)
    select ${appId}, 'https://push.example.com/grown-' || n, 'p256dh', 'auth' from generate_series(1, 5000) n`;
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth)
    select ${appId}, 'https://push.example.com/gone-10', 'p256dh', 'auth' on conflict do nothing`;
  const [still] = await sql<{ analyzed: boolean }[]>`
    select coalesce(last_analyze, last_autoanalyze) is not null as analyzed
    from pg_stat_user_tables where relname = 'subscriptions'`;
  t.equal(still?.analyzed, false, 'still never analyzed');

  for (const [name, statement] of Object.entries(statements)) {
    await t.test(name, async (t) => {
      const seen = await plansOf(() => statement(10));
      t.ok(seen.length > 0, 'auto_explain reported its plans');
      for (const plan of seen) {
        // Every look-up of a subscription by (app_id, endpoint) is an index condition on both columns
        // of the unique index (or the insert's conflict arbiter); nothing reads the app's rows to find it.
        t.notMatch(plan, /subscriptions_app_status_created_idx|subscriptions_app_created_idx/, plan);
        t.notMatch(plan, /Seq Scan on subscriptions/, plan);
      }
      t.ok(
        seen.some((plan) => plan.includes('subscriptions_app_endpoint_key')),
        `the unique index serves it:\n${seen.join('\n')}`,
      );
    });
  }
});
