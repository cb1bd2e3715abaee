import { upsertSubscription } from '@webpush/db';
import { subscriberCounted } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, createKey, fakeSubscription, ownerWithKey } from '../helper.js';

// The per-owner active-subscriber counter that POST /subscribe checks the plan limit against: after
// every change through the API it equals a real count of the owner's active subscriptions. (Expiry
// by the worker: apps/worker/test/subscriber-counter.test.ts.)
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '10000' });
const { app } = ctx;
const sql = ctx.database.sql;

const subscribe = (secret: string, payload: object) =>
  app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload });

const counted = (ownerId: string) => subscriberCounted(sql, ownerId);

t.test('the counter equals a real count through subscribe, re-subscribe, delete and app deletion', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  await sql`update users set plan = 'pro' where id = ${ownerId}`;
  t.strictSame(await counted(ownerId), { counter: null, real: 0 }, 'no row before the first subscription');

  const first = [fakeSubscription(), fakeSubscription(), fakeSubscription()];
  for (const subscription of first) t.equal((await subscribe(owner.secret, subscription)).statusCode, 201);
  t.strictSame(await counted(ownerId), { counter: 3, real: 3 }, 'three new subscriptions');

  const [renewed, removedByEndpoint, removedById] = first;
  if (!renewed || !removedByEndpoint || !removedById) throw new Error('subscriptions missing');
  t.equal((await subscribe(owner.secret, { ...fakeSubscription(), endpoint: renewed.endpoint })).statusCode, 200);
  const again = await Promise.all(
    [1, 2, 3, 4].map(() => subscribe(owner.secret, { ...fakeSubscription(), endpoint: renewed.endpoint })),
  );
  t.strictSame(
    again.map((response) => response.statusCode),
    [200, 200, 200, 200],
  );
  t.strictSame(await counted(ownerId), { counter: 3, real: 3 }, 're-subscribing an active endpoint counts once');

  const simultaneous = Array.from({ length: 20 }, () => fakeSubscription());
  const created = await Promise.all(simultaneous.map((subscription) => subscribe(owner.secret, subscription)));
  t.equal(created.filter((response) => response.statusCode === 201).length, 20);
  t.strictSame(await counted(ownerId), { counter: 23, real: 23 }, 'twenty simultaneous subscribes');

  const sameEndpoint = fakeSubscription();
  const racing = await Promise.all([1, 2, 3, 4, 5].map(() => subscribe(owner.secret, sameEndpoint)));
  t.strictSame(racing.map((response) => response.statusCode).sort(), [200, 200, 200, 200, 201]);
  t.strictSame(await counted(ownerId), { counter: 24, real: 24 }, 'five simultaneous subscribes of one endpoint');

  const unsubscribed = await app.inject({
    method: 'DELETE',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: removedByEndpoint.endpoint },
  });
  t.equal(unsubscribed.statusCode, 204);
  t.strictSame(await counted(ownerId), { counter: 23, real: 23 }, 'DELETE /subscribe');

  const [row] = await sql`select id from subscriptions where endpoint = ${removedById.endpoint}`;
  const removed = await app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${owner.app.id}/subscribers/${row?.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal(removed.statusCode, 204);
  t.strictSame(await counted(ownerId), { counter: 22, real: 22 }, 'DELETE /apps/:appId/subscribers/:id');

  // An expired subscription does not count; deleting it gives nothing back; re-activating it takes a slot.
  const expiredOne = simultaneous[0];
  const deletedExpired = simultaneous[1];
  if (!expiredOne || !deletedExpired) throw new Error('subscriptions missing');
  await sql`
    with expired as (
      update subscriptions set status = 'expired', expired_at = now()
      where endpoint in (${expiredOne.endpoint}, ${deletedExpired.endpoint}) returning id
    )
    update subscriber_counters set active = active - (select count(*) from expired)
    where user_id = ${ownerId} and stripe = 0`;
  t.strictSame(await counted(ownerId), { counter: 20, real: 20 });
  const deleteExpired = await app.inject({
    method: 'DELETE',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: deletedExpired.endpoint },
  });
  t.equal(deleteExpired.statusCode, 204);
  t.strictSame(await counted(ownerId), { counter: 20, real: 20 }, 'deleting an expired subscription');
  t.equal((await subscribe(owner.secret, { ...fakeSubscription(), endpoint: expiredOne.endpoint })).statusCode, 200);
  t.strictSame(await counted(ownerId), { counter: 21, real: 21 }, 're-activation');

  // A second app of the same owner shares the counter; deleting it gives its active subscriptions back.
  const second = await createApp(app, owner.user.token, 'Second app');
  const secondKey = await createKey(app, owner.user.token, second.id, 'subscribe_only');
  for (let index = 0; index < 4; index++) {
    t.equal((await subscribe(secondKey.secret, fakeSubscription())).statusCode, 201);
  }
  await sql`
    with expired as (
      update subscriptions set status = 'expired', expired_at = now()
      where id = (select id from subscriptions where app_id = ${second.id} limit 1) returning id
    )
    update subscriber_counters set active = active - (select count(*) from expired)
    where user_id = ${ownerId} and stripe = 0`;
  t.strictSame(await counted(ownerId), { counter: 24, real: 24 }, 'four more in the second app, one expired');
  const deleted = await app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${second.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal(deleted.statusCode, 204);
  t.strictSame(await counted(ownerId), { counter: 21, real: 21 }, 'deleting the app subtracts its three active ones');
});

t.test("a subscriber limit reached in one app holds in the owner's other apps", async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  await sql`update users set plan = 'pro' where id = ${ownerId}`;
  t.equal((await subscribe(owner.secret, fakeSubscription())).statusCode, 201);
  const second = await createApp(app, owner.user.token, 'Second app');
  const secondKey = await createKey(app, owner.user.token, second.id, 'subscribe_only');
  // As if the owner already had 100,000 (the Pro limit) active subscribers.
  await sql`select set_subscriber_count(${ownerId}, 100000)`;
  assertError(t, await subscribe(secondKey.secret, fakeSubscription()), 'SUBSCRIBER_LIMIT_EXCEEDED');
  const [row] = await sql`select count(*)::int as n from subscriptions where app_id = ${second.id}`;
  t.equal(row?.n, 0, 'nothing stored');
  t.equal((await counted(ownerId)).counter, 100000, 'the counter is unchanged');
});

t.test('a subscribe whose app is deleted while it runs takes no slot and does not fail with a 500', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const ownerId = owner.user.user.id;
  // The moment after the API key was checked: the app (and its keys) is deleted, the request goes on.
  const [gone] = await sql<{ id: string }[]>`
    insert into apps (user_id, name, vapid_public_key, vapid_private_key_sealed)
    select user_id, 'gone', vapid_public_key, vapid_private_key_sealed from apps where user_id = ${ownerId}
    returning id`;
  if (!gone) throw new Error('no app made');
  await sql`delete from apps where id = ${gone.id}`;
  const result = await upsertSubscription(ctx.app.db, ownerId, gone.id, fakeSubscription(), 1_000);
  t.equal(result, 'app_gone');
  t.strictSame(await counted(ownerId), { counter: null, real: 0 }, 'no slot taken');
});
