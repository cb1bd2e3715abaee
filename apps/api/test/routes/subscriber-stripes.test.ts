import { createDatabase } from '@webpush/db';
import { subscriberCounted } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// The subscriber count in 16 stripes per owner (migration 0014): one owner's subscribes do not
// wait for each other's commits, and the plan's limit stays exact — under many simultaneous
// subscribes, across a change of plan, and with slots given back to any stripe.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '10000', RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: '10000' });
const { app } = ctx;
const sql = ctx.database.sql;

const subscribe = (secret: string, payload: object) =>
  app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload });
const unsubscribe = (secret: string, endpoint: string) =>
  app.inject({ method: 'DELETE', url: '/api/v1/subscribe', headers: bearer(secret), payload: { endpoint } });

/** Active subscriptions written straight to the database, the owner's count set to match. */
async function fill(appId: string, count: number, label: string) {
  await sql`
    with filled as (
      insert into subscriptions (app_id, endpoint, p256dh, auth)
      select ${appId}, 'https://fcm.googleapis.com/fcm/send/' || ${label} || '-' || g, 'p256dh', 'auth'
      from generate_series(1, ${count}::int) g
      returning id
    )
    select set_subscriber_count(user_id, (select count(*) from subscriptions s
      where s.app_id = ${appId} and s.status = 'active')::int + (select count(*) from filled)::int)
    from apps where id = ${appId}`;
}

async function stripes(ownerId: string) {
  return sql<{ stripe: number; active: number; balancedFor: number | null }[]>`
    select stripe, active, balanced_for as "balancedFor" from subscriber_counters
    where user_id = ${ownerId} order by stripe`;
}

const counted = (ownerId: string) => subscriberCounted(sql, ownerId);

const share = (stripe: number, limit: number) => Math.floor(limit / 16) + (stripe < limit % 16 ? 1 : 0);

t.test('sixty simultaneous subscribes with 25 slots left: exactly 25 get in', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  await fill(owner.app.id, 975, 'bulk');
  t.strictSame(await counted(ownerId), { counter: 975, real: 975 });

  const responses = await Promise.all(Array.from({ length: 60 }, () => subscribe(owner.secret, fakeSubscription())));
  const statuses = responses.map((response) => response.statusCode);
  t.equal(statuses.filter((status) => status === 201).length, 25, '25 created');
  t.equal(statuses.filter((status) => status === 429).length, 35, 'the other 35 refused');
  for (const response of responses.filter((r) => r.statusCode === 429)) {
    assertError(t, response, 'SUBSCRIBER_LIMIT_EXCEEDED');
  }
  t.strictSame(await counted(ownerId), { counter: 1000, real: 1000 }, 'count and table agree at the limit');
  const rows = await stripes(ownerId);
  t.equal(rows.length, 16, 'sixteen stripes');
  t.ok(
    rows.every((row) => row.balancedFor === 1000 && row.active <= share(row.stripe, 1000)),
    'every stripe within its share of the Free limit',
  );
});

t.test('two subscribes of one owner hold their slots at once, neither waiting for the other', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  t.equal((await subscribe(owner.secret, fakeSubscription())).statusCode, 201, 'the first spreads the stripes');

  // Two open transactions, as two subscribes between their increment and their commit. With one
  // counter row the second waited for the first's commit; lock_timeout turns a wait into an error.
  const connections = [
    createDatabase(ctx.resources.databaseUrl, { max: 1 }),
    createDatabase(ctx.resources.databaseUrl, { max: 1 }),
  ];
  const [first, second] = connections.map((connection) => connection.sql) as [typeof sql, typeof sql];
  try {
    await first`begin`;
    const [a] = await first<{ taken: boolean }[]>`select take_subscriber_slot(${ownerId}, 1000) as taken`;
    await second`begin`;
    await second`set local lock_timeout = '2s'`;
    const [b] = await second<{ taken: boolean }[]>`select take_subscriber_slot(${ownerId}, 1000) as taken`;
    t.strictSame([a?.taken, b?.taken], [true, true], 'both took a slot while the other was uncommitted');
    await first`commit`;
    await second`commit`;
  } finally {
    await Promise.all(connections.map((connection) => connection.close()));
  }
  t.equal((await counted(ownerId)).counter, 3, 'both counted');
});

t.test('a lower limit after the stripes were spread for a higher one is exact', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  await sql`update users set plan = 'pro' where id = ${ownerId}`;
  await fill(owner.app.id, 1200, 'pro');
  t.equal((await subscribe(owner.secret, fakeSubscription())).statusCode, 201, 'under Pro');
  t.ok(
    (await stripes(ownerId)).every((row) => row.balancedFor === 100_000),
    'spread for the Pro limit',
  );

  await sql`update users set plan = 'free' where id = ${ownerId}`;
  const refused = await Promise.all([1, 2, 3, 4, 5].map(() => subscribe(owner.secret, fakeSubscription())));
  t.strictSame(
    refused.map((response) => response.statusCode),
    [429, 429, 429, 429, 429],
    'over the Free limit: every stripe with room under Pro is refused under Free',
  );
  t.strictSame(await counted(ownerId), { counter: 1201, real: 1201 });

  // 202 removed at once, their slots given back to whichever stripes were free: 999 left.
  const endpoints = (
    await sql<{ endpoint: string }[]>`
    select endpoint from subscriptions where app_id = ${owner.app.id} order by endpoint limit 202`
  ).map((row) => row.endpoint);
  const removed = await Promise.all(endpoints.map((endpoint) => unsubscribe(owner.secret, endpoint)));
  t.ok(
    removed.every((response) => response.statusCode === 204),
    '202 removed',
  );
  t.strictSame(await counted(ownerId), { counter: 999, real: 999 });

  const last = await Promise.all([1, 2, 3, 4, 5].map(() => subscribe(owner.secret, fakeSubscription())));
  t.strictSame(
    last.map((response) => response.statusCode).sort(),
    [201, 429, 429, 429, 429],
    'exactly the one slot left',
  );
  t.strictSame(await counted(ownerId), { counter: 1000, real: 1000 });
  t.ok(
    (await stripes(ownerId)).every((row) => row.balancedFor === 1000 && row.active <= share(row.stripe, 1000)),
    'spread again, for the Free limit',
  );
});

t.test('without a limit any stripe takes a slot, and a limit afterwards counts them all', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  await sql`update users set plan = 'enterprise' where id = ${ownerId}`;
  const created = await Promise.all(Array.from({ length: 30 }, () => subscribe(owner.secret, fakeSubscription())));
  t.ok(
    created.every((response) => response.statusCode === 201),
    'thirty created',
  );
  t.strictSame(await counted(ownerId), { counter: 30, real: 30 });
  t.ok(
    (await stripes(ownerId)).every((row) => row.balancedFor === null),
    'not spread for any limit',
  );
  await fill(owner.app.id, 969, 'enterprise');
  await sql`update users set plan = 'free' where id = ${ownerId}`;
  const after = await Promise.all([1, 2, 3].map(() => subscribe(owner.secret, fakeSubscription())));
  t.strictSame(after.map((response) => response.statusCode).sort(), [201, 429, 429], 'one slot of the Free limit left');
  t.strictSame(await counted(ownerId), { counter: 1000, real: 1000 });
});
