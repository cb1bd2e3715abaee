import { waitForValue } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// Subscriptions have no foreign key to their app (migration 0023: its check per inserted row cost
// too much of a subscribe's database time, docs/performance.md). What it guaranteed still holds: no subscription outlives
// its app, whichever way the app goes, and a subscribe racing with the app's deletion stores nothing.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

const subscribe = (secret: string, payload: object) =>
  app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload });

const subscriptionsOf = async (appId: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from subscriptions where app_id = ${appId}`)[0]?.n;

async function subscribed(secret: string, count: number) {
  const responses = await Promise.all(Array.from({ length: count }, () => subscribe(secret, fakeSubscription())));
  for (const response of responses) if (response.statusCode !== 201) throw new Error(response.body);
}

t.test("deleting an app by any statement deletes its subscriptions, and no other app's", async (t) => {
  const [first, second, kept] = [
    await ownerWithKey(app, 'notify'),
    await ownerWithKey(app, 'notify'),
    await ownerWithKey(app, 'notify'),
  ];
  for (const owner of [first, second, kept]) await subscribed(owner.secret, 3);
  t.equal(await subscriptionsOf(first.app.id), 3);

  await sql`delete from apps where id = ${first.app.id}`;
  t.equal(await subscriptionsOf(first.app.id), 0, 'a DELETE of the app');

  // The owner's account removed: its apps go by the users → apps cascade, and theirs with them.
  await sql`delete from users where id = ${second.user.user.id}`;
  t.equal(await subscriptionsOf(second.app.id), 0, "the owner's deletion, through the apps' cascade");

  t.equal(await subscriptionsOf(kept.app.id), 3, "another app's subscriptions stay");
});

t.test('subscribes waiting on a deletion of their app store nothing, and hold up no other app', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  const other = await ownerWithKey(app, 'notify');
  await subscribed(owner.secret, 2);
  await subscribed(other.secret, 1);
  let answers: Promise<Awaited<ReturnType<typeof subscribe>>[]> | undefined;
  await sql.begin(async (tx) => {
    // As the app's deletion does: the app's row locked first, its subscriptions deleted, the app deleted.
    await tx`select id from apps where id = ${owner.app.id} for update`;
    const others = Promise.all(Array.from({ length: 4 }, () => subscribe(other.secret, fakeSubscription())));
    answers = Promise.all(Array.from({ length: 4 }, () => subscribe(owner.secret, fakeSubscription())));
    // Sent in the same turns as the waiting ones, another app's subscribes are answered meanwhile.
    t.strictSame(
      (await others).map((response) => response.statusCode),
      [201, 201, 201, 201],
      "another app's subscribes are stored while the deletion holds its app",
    );
    // Each of them goes alone (a batch skips an app being deleted) and waits for the app's row.
    await waitForValue(
      async () => {
        const [row] = await sql<{ n: number }[]>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike '%insert into subscriptions%'`;
        return row?.n ?? 0;
      },
      (waiting) => waiting >= 4,
      "4 subscribes wait for the app's lock",
      { timeoutMs: 10_000 },
    );
    await tx`delete from subscriptions where app_id = ${owner.app.id}`;
    await tx`delete from apps where id = ${owner.app.id}`;
  });
  const responses = await answers;
  t.equal(responses?.length, 4);
  for (const response of responses ?? []) assertError(t, response, 'INVALID_API_KEY');
  t.equal(await subscriptionsOf(owner.app.id), 0, 'no subscription outlived its app');
  t.equal(await subscriptionsOf(other.app.id), 5);
});

t.test('the tags index, which holds only subscriptions with tags, serves a query that asks for a pair', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  const tagged = await subscribe(owner.secret, { ...fakeSubscription(), tags: { plan: 'gold' } });
  t.equal(tagged.statusCode, 201);
  // An app whose subscriptions mostly have other tags or none: a pair is selective, the app is not.
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth, tags)
    select ${owner.app.id}, 'https://fcm.googleapis.com/fcm/send/bulk-' || g, 'k', 'a',
      case when g % 2 = 0 then jsonb_build_object('n', g::text) else '{}'::jsonb end
    from generate_series(1, 4000) g`;
  await sql`analyze subscriptions`;
  const plan = async (withEmptyExcluded: boolean) =>
    (
      await sql.unsafe(
        `explain select id from subscriptions s
          where s.app_id = '${owner.app.id}' and s.status = 'active' and s.tags @> '{"plan":"gold"}'::jsonb
          ${withEmptyExcluded ? `and s.tags <> '{}'::jsonb` : ''}`,
      )
    )
      .map((row) => String(row['QUERY PLAN']))
      .join('\n');
  t.match(await plan(true), /subscriptions_active_tags_idx/, 'with tags <> {}');
  t.notMatch(await plan(false), /subscriptions_active_tags_idx/, 'not without it: the index is partial');
  const [counted] = await sql<{ n: number }[]>`
    select count_active_targets(${owner.app.id}::uuid, null, '{"plan":"gold"}'::jsonb) as n`;
  t.equal(counted?.n, 1, 'the audience count finds the tagged subscription');
  const [all] = await sql<{ n: number }[]>`select count_active_targets(${owner.app.id}::uuid, null, '{}'::jsonb) as n`;
  t.equal(all?.n, 4001, 'an empty tags target still counts every active subscription');
});
