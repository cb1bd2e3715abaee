import { appSubscriberCounted } from '@webpush/testing';
import t from 'tap';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey } from '../helper.js';

// The exact count of each app's active subscriptions that the accept of a send to all of an app reads
// (migration 0032, docs/scaling.md). After rounds of random operations, many at once across two apps
// of one owner (subscribe, re-subscribe, re-activation, DELETE /subscribe, delete by id, expiry and
// retirement as the worker writes them), each app's count equals a real count; a send to all targets
// exactly that many; deleting an app deletes its count. The counts per time zone (migration 0040,
// read by a `localTime` send to everyone) are checked the same way, with zones given, changed by
// PATCH /subscribe and removed.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000' });
const { app } = ctx;
const sql = ctx.database.sql;

// A small deterministic generator, so a failing run can be replayed from the seed it prints.
const seed = Number(process.env.COUNT_TEST_SEED ?? Date.now() % 1_000_000);
let state = seed;
const random = () => {
  state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
  return state / 2_147_483_648;
};
const pick = <T>(items: T[]): T | undefined => items[Math.floor(random() * items.length)];
const ZONES = ['Asia/Tokyo', 'Europe/Paris', 'America/New_York', null];

/** The app's counts per zone as kept, beside a real count of its active subscriptions per zone. */
async function zonesCounted(appId: string) {
  const kept = await sql<{ zone: string; n: number }[]>`
    select zone, active as n from count_active_subscribers_by_zone(${appId}::uuid) order by zone`;
  const real = await sql<{ zone: string; n: number }[]>`
    select coalesce(time_zone, '') as zone, count(*)::int as n from subscriptions
    where app_id = ${appId} and status = 'active' group by 1 order by 1`;
  return { kept: kept.map((row) => ({ ...row })), real: real.map((row) => ({ ...row })) };
}

t.test('each app counts exactly its active subscriptions after random operations', async (t) => {
  t.comment(`seed ${seed}`);
  const owner = await ownerWithKey(app, 'full');
  await sql`update users set plan = 'enterprise' where id = ${owner.user.user.id}`;
  const second = await ownerWithKey(app, 'full');
  await sql`update users set plan = 'enterprise' where id = ${second.user.user.id}`;
  const apps = [
    { id: owner.app.id, secret: owner.secret, token: owner.user.token },
    { id: second.app.id, secret: second.secret, token: second.user.token },
  ];
  const known = new Map<string, ReturnType<typeof fakeSubscription>[]>(apps.map((a) => [a.id, []]));

  const subscribe = (secret: string, subscription: object) =>
    app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload: subscription });
  const idsOf = async (appId: string, status: string, n: number) =>
    (
      await sql<{ id: string }[]>`
        select id from subscriptions where app_id = ${appId} and status = ${status} order by random() limit ${n}`
    ).map((row) => row.id);

  const operations: Record<string, (target: (typeof apps)[number]) => Promise<void>> = {
    async subscribe(target) {
      const zone = pick(ZONES);
      const subscription = { ...fakeSubscription(), ...(zone ? { timeZone: zone } : {}) };
      const response = await subscribe(target.secret, subscription);
      t.equal(response.statusCode, 201, response.body);
      known.get(target.id)?.push(subscription);
    },
    async resubscribe(target) {
      const subscription = pick(known.get(target.id) ?? []);
      if (!subscription) return;
      t.ok([200, 201].includes((await subscribe(target.secret, subscription)).statusCode), 're-subscribe');
    },
    // Another zone, or none, for a known subscription (active or expired: an expired one keeps none).
    async moveZone(target) {
      const subscription = pick(known.get(target.id) ?? []);
      if (!subscription) return;
      const response = await app.inject({
        method: 'PATCH',
        url: '/api/v1/subscribe',
        headers: bearer(target.secret),
        payload: { endpoint: subscription.endpoint, timeZone: pick(ZONES) ?? null },
      });
      t.ok([200, 404].includes(response.statusCode), `PATCH /subscribe: ${response.body}`);
    },
    async unsubscribe(target) {
      const subscription = pick(known.get(target.id) ?? []);
      if (!subscription) return;
      const response = await app.inject({
        method: 'DELETE',
        url: '/api/v1/subscribe',
        headers: bearer(target.secret),
        payload: { endpoint: subscription.endpoint },
      });
      t.ok([204, 404].includes(response.statusCode), 'DELETE /subscribe');
    },
    async deleteById(target) {
      const [id] = await idsOf(target.id, pick(['active', 'expired']) ?? 'active', 1);
      if (!id) return;
      const response = await app.inject({
        method: 'DELETE',
        url: `/api/v1/apps/${target.id}/subscribers/${id}`,
        headers: bearer(target.token),
      });
      t.ok([204, 404].includes(response.statusCode), 'DELETE /apps/:appId/subscribers/:id');
    },
    // The worker's statement for a 404/410 answer (expireSubscriptions).
    async expire(target) {
      const ids = await idsOf(target.id, 'active', 1 + Math.floor(random() * 3));
      await sql`update subscriptions set status = 'expired', expired_at = now(), updated_at = now()
        where app_id = ${target.id} and status = 'active' and id = any(${ids}::uuid[])`;
    },
    // The worker's statements for a refusal streak that reaches its limit (recordRefusals).
    async retire(target) {
      const ids = await idsOf(target.id, 'active', 1 + Math.floor(random() * 2));
      await sql`update subscriptions set refusals = least(refusals + 1, 32767)
        where app_id = ${target.id} and status = 'active' and id = any(${ids}::uuid[])`;
      await sql`update subscriptions set status = 'expired', expired_at = now(), updated_at = now()
        where app_id = ${target.id} and status = 'active' and id = any(${ids}::uuid[]) and refusals >= 1`;
    },
  };
  const weighted = [
    'subscribe',
    'subscribe',
    'subscribe',
    'resubscribe',
    'moveZone',
    'unsubscribe',
    'deleteById',
    'expire',
    'retire',
  ];

  for (let round = 0; round < 6; round++) {
    await Promise.all(
      Array.from({ length: 24 }, () => {
        const name = pick(weighted) ?? 'subscribe';
        const target = pick(apps) ?? apps[0];
        if (!target) throw new Error('no app');
        return operations[name]?.(target);
      }),
    );
    for (const target of apps) {
      const counted = await appSubscriberCounted(sql, target.id);
      t.equal(counted.counter ?? 0, counted.real, `round ${round}: app ${target.id} counts ${counted.real}`);
      const zones = await zonesCounted(target.id);
      t.same(zones.kept, zones.real, `round ${round}: app ${target.id} per zone ${JSON.stringify(zones.real)}`);
    }
  }

  // A batch that stores several at once (the batched subscribe path) and a second key of the same app.
  const extraKey = await createKey(app, owner.user.token, owner.app.id, 'subscribe_only');
  const burst = await Promise.all(Array.from({ length: 10 }, () => subscribe(extraKey.secret, fakeSubscription())));
  t.strictSame(new Set(burst.map((response) => response.statusCode)), new Set([201]));
  const after = await appSubscriberCounted(sql, owner.app.id);
  t.equal(after.counter, after.real, 'ten simultaneous subscribes');

  const sent = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'All', body: 'Everyone' },
  });
  t.equal(sent.statusCode, 202);
  t.equal((sent.json() as { notification: { targets: number } }).notification.targets, after.real, 'a send to all');

  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/apps/${second.app.id}`, headers: bearer(second.user.token) }))
      .statusCode,
    204,
  );
  const [left] = await sql<{ n: number }[]>`
    select count(*)::int as n from app_subscriber_counts where app_id = ${second.app.id}`;
  t.equal(left?.n, 0, "a deleted app's count goes with it");
  const [zonesLeft] = await sql<{ n: number }[]>`
    select count(*)::int as n from app_zone_subscriber_counts where app_id = ${second.app.id}`;
  t.equal(zonesLeft?.n, 0, 'and its counts per zone');

  // A local-time send to everyone is planned from the counts per zone: its groups add up to them.
  const local = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'Morning', body: 'At nine', localTime: '09:00' },
  });
  t.equal(local.statusCode, 202, local.body);
  const localId = (local.json() as { notification: { id: string; targets: number } }).notification;
  const zones = await zonesCounted(owner.app.id);
  t.equal(
    localId.targets,
    zones.real.reduce((sum, row) => sum + row.n, 0),
    'the local-time send targets everyone',
  );
  const groups = await sql<{ zones: string[]; unzoned: boolean; targets: number }[]>`
    select zones, unzoned, targets from notification_local_groups where notification_id = ${localId.id}`;
  for (const row of zones.real) {
    const group = groups.find((g) => (row.zone === '' ? g.unzoned : g.zones.includes(row.zone)));
    t.ok(group, `a group holds zone ${row.zone || '(none)'}`);
  }
  t.equal(
    groups.reduce((sum, group) => sum + group.targets, 0),
    localId.targets,
    'the groups add up to the send',
  );
});

t.test('a bulk delete and a recount agree with the triggers', async (t) => {
  const owner = await ownerWithKey(app, 'full');
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth)
    select ${owner.app.id}::uuid, 'https://fcm.googleapis.com/fcm/send/bulk-' || n, 'p256dh', 'auth'
    from generate_series(1, 500) n`;
  await sql`update subscriptions set time_zone = (array['Asia/Tokyo', 'UTC'])[1 + n % 2]
    from (select id, row_number() over (order by id) as n from subscriptions where app_id = ${owner.app.id}) numbered
    where subscriptions.id = numbered.id and numbered.n % 5 <> 0`;
  t.strictSame(await appSubscriberCounted(sql, owner.app.id), { counter: 500, real: 500 }, 'one insert of 500');
  await sql`delete from subscriptions where app_id = ${owner.app.id} and endpoint like '%-1%'`;
  const counted = await appSubscriberCounted(sql, owner.app.id);
  t.equal(counted.counter, counted.real, 'one delete of many');
  const [recounted] = await sql<{ n: number }[]>`select recount_active_subscribers(${owner.app.id})::int as n`;
  t.equal(recounted?.n, counted.real, 'the recount finds the same');
  const zones = await zonesCounted(owner.app.id);
  t.same(zones.kept, zones.real, `per zone after the bulk statements: ${JSON.stringify(zones.real)}`);
  t.equal(zones.real.length, 3, 'two zones and none');
  // A repair after a load that bypassed the triggers.
  await sql`delete from app_zone_subscriber_counts where app_id = ${owner.app.id}`;
  const [rezoned] = await sql<{ n: number }[]>`select recount_zone_subscribers(${owner.app.id})::int as n`;
  t.equal(rezoned?.n, counted.real);
  const repaired = await zonesCounted(owner.app.id);
  t.same(repaired.kept, repaired.real, 'the zones recounted');
});
