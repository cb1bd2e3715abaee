import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// The Free plan's 1,000 active subscribers (packages/plans), also under concurrency.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '10000' });
const { app } = ctx;
const sql = ctx.database.sql;

const subscribe = (secret: string, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload: payload as object });

/** Bulk subscriptions written straight to the database, keeping the owner's counter in step as the API does. */
const fill = async (appId: string, count: number, status: 'active' | 'expired', label: string) => {
  await sql`
    with filled as (
      insert into subscriptions (app_id, endpoint, p256dh, auth, status)
      select ${appId}, 'https://fcm.googleapis.com/fcm/send/' || ${label} || '-' || g, 'p256dh', 'auth', ${status}
      from generate_series(1, ${count}::int) g
      returning status
    )
    select set_subscriber_count(user_id,
      (select coalesce(sum(active), 0) from subscriber_counters c where c.user_id = apps.user_id)::int
      + (select count(*) from filled where status = 'active')::int)
    from apps where id = ${appId}`;
};
const activeCount = async (appId: string) =>
  (await sql`select count(*)::int as n from subscriptions where app_id = ${appId} and status = 'active'`)[0]
    ?.n as number;

t.test('with one slot left, five simultaneous new subscriptions give exactly one 201', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await fill(owner.app.id, 999, 'active', 'bulk');
  await fill(owner.app.id, 5, 'expired', 'gone'); // expired ones do not count
  t.equal(await activeCount(owner.app.id), 999);

  const attempts = [1, 2, 3, 4, 5].map(() => fakeSubscription());
  const responses = await Promise.all(attempts.map((attempt) => subscribe(owner.secret, attempt)));
  t.strictSame(responses.map((response) => response.statusCode).sort(), [201, 429, 429, 429, 429], 'one 201, four 429');
  for (const response of responses.filter((r) => r.statusCode === 429)) {
    assertError(t, response, 'SUBSCRIBER_LIMIT_EXCEEDED');
  }
  t.equal(await activeCount(owner.app.id), 1000, 'exactly 1,000 active');
  const winner = attempts[responses.findIndex((response) => response.statusCode === 201)];
  const [stored] = await sql`select count(*)::int as n from subscriptions where endpoint = ${winner?.endpoint ?? ''}`;
  t.equal(stored?.n, 1, "the winner's subscription is the one stored");

  await t.test('at the limit, an active endpoint subscribing again is still 200', async (t) => {
    const existing = 'https://fcm.googleapis.com/fcm/send/bulk-1';
    const renewed = fakeSubscription();
    const response = await subscribe(owner.secret, { ...renewed, endpoint: existing });
    t.equal(response.statusCode, 200);
    const [row] = await sql`select p256dh from subscriptions where app_id = ${owner.app.id} and endpoint = ${existing}`;
    t.equal(row?.p256dh, renewed.p256dh, 'its keys were updated');
    t.equal(await activeCount(owner.app.id), 1000);
  });

  await t.test('at the limit, a new or a re-activated subscription is 429 with upgrade_url', async (t) => {
    const fresh = await subscribe(owner.secret, fakeSubscription());
    assertError(t, fresh, 'SUBSCRIBER_LIMIT_EXCEEDED');
    t.equal(fresh.json<{ upgrade_url?: string }>().upgrade_url, 'http://localhost:3000/pricing');
    const expired = 'https://fcm.googleapis.com/fcm/send/gone-1';
    assertError(
      t,
      await subscribe(owner.secret, { ...fakeSubscription(), endpoint: expired }),
      'SUBSCRIBER_LIMIT_EXCEEDED',
    );
    const [row] = await sql`select status from subscriptions where app_id = ${owner.app.id} and endpoint = ${expired}`;
    t.equal(row?.status, 'expired', 'it stays expired');
    t.equal(await activeCount(owner.app.id), 1000);
  });

  await t.test('removing a subscription frees its slot', async (t) => {
    const removed = await app.inject({
      method: 'DELETE',
      url: '/api/v1/subscribe',
      headers: bearer(owner.secret),
      payload: { endpoint: 'https://fcm.googleapis.com/fcm/send/bulk-2' },
    });
    t.equal(removed.statusCode, 204);
    t.equal((await subscribe(owner.secret, fakeSubscription())).statusCode, 201);
    assertError(t, await subscribe(owner.secret, fakeSubscription()), 'SUBSCRIBER_LIMIT_EXCEEDED');
  });

  await t.test('the Pro plan is not held to the Free limit', async (t) => {
    await sql`update users set plan = 'pro' where id = ${owner.user.user.id}`;
    t.equal((await subscribe(owner.secret, fakeSubscription())).statusCode, 201);
    t.equal(await activeCount(owner.app.id), 1001);
  });
});

t.test('without a plan limit, simultaneous subscriptions of one endpoint still make one row', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await sql`update users set plan = 'enterprise' where id = ${owner.user.user.id}`;
  const subscription = fakeSubscription();
  const responses = await Promise.all([1, 2, 3, 4, 5].map(() => subscribe(owner.secret, subscription)));
  t.strictSame(responses.map((response) => response.statusCode).sort(), [200, 200, 200, 200, 201]);
  const ids = new Set(responses.map((response) => (response.json() as { subscriber: { id: string } }).subscriber.id));
  t.equal(ids.size, 1);
  const [row] = await sql`select count(*)::int as n from subscriptions where endpoint = ${subscription.endpoint}`;
  t.equal(row?.n, 1);
});
