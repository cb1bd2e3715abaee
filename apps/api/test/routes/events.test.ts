import { testCoordination } from '@webpush/testing';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey, planDelivery, subscribe } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000000', EVENTS_FLUSH_INTERVAL_MS: '600000' });
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

/** An owner with a notify key (to send), a browser key (to report events) and one subscriber. */
async function ownerWithSubscriber() {
  const owner = await ownerWithKey(app, 'notify');
  const user = owner.user;
  const browser = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/keys`,
    headers: bearer(user.token),
    payload: { scope: 'subscribe_only' },
  });
  const browserSecret = browser.json<{ secret: string }>().secret;
  const subscription = await subscribe(app, browserSecret);
  return { ...owner, browserSecret, subscription };
}

async function send(owner: Owner) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'T', body: 'B' },
  });
  if (response.statusCode !== 202) throw new Error(`notify: ${response.statusCode} ${response.body}`);
  const { id } = response.json<{ notification: { id: string } }>().notification;
  // Engagement counts only for subscriptions the notification was pushed to: plan its delivery as
  // the worker's fan-out does.
  await planDelivery(ctx.database, id);
  return id;
}

const report = (secret: string, payload: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/v1/events', headers: { ...bearer(secret), ...headers }, payload });

async function counts(owner: Owner, id: string) {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}`,
    headers: bearer(owner.secret),
  });
  const { shown, clicked } = response.json<{ notification: { shown: number; clicked: number } }>().notification;
  return { shown, clicked };
}

const a = await ownerWithSubscriber();
const b = await ownerWithSubscriber();

t.test('shown and clicked are counted once per (notification, subscription, type)', async (t) => {
  const id = await send(a);
  t.strictSame(await counts(a, id), { shown: 0, clicked: 0 }, 'a new notification has zero counts');
  const event = { notificationId: id, endpoint: a.subscription.endpoint };
  for (const type of ['shown', 'clicked', 'clicked', 'shown']) {
    const response = await report(a.browserSecret, { ...event, type });
    t.equal(response.statusCode, 202);
    t.strictSame(response.json(), {});
  }
  const flushed = await app.engagement.flush();
  t.equal(flushed.counted, 2, 'two distinct events counted');
  t.strictSame(await counts(a, id), { shown: 1, clicked: 1 });

  // Reported again later (another flush): still once.
  await report(a.browserSecret, { ...event, type: 'clicked' });
  t.equal((await app.engagement.flush()).counted, 0);
  t.strictSame(await counts(a, id), { shown: 1, clicked: 1 });

  const list = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${a.app.id}/notifications`,
    headers: bearer(a.user.token),
  });
  t.match(list.json(), { notifications: [{ id, shown: 1, clicked: 1 }] }, 'the session list carries the counts');
  const rows = await sql`select type from notification_events where notification_id = ${id} order by type`;
  t.strictSame(
    rows.map((row) => row.type),
    ['clicked', 'shown'],
  );
});

t.test('a flush called while another of this process runs waits for it: what it returns is counted', async (t) => {
  const id = await send(b);
  const event = { notificationId: id, endpoint: b.subscription.endpoint };
  t.equal((await report(b.browserSecret, { ...event, type: 'shown' })).statusCode, 202);
  // The first holds the buffer's lock (as the timer's flush would); the second must not find it taken
  // and return before the first has committed.
  const first = app.engagement.flush();
  const second = app.engagement.flush();
  const settled = await second;
  t.strictSame(await counts(b, id), { shown: 1, clicked: 0 }, 'counted once the second flush returns');
  t.equal((await first).counted + settled.counted, 1, 'counted once between the two');
});

t.test('what does not exist in the key app counts nothing and still answers 202', async (t) => {
  const idA = await send(a);
  const idB = await send(b);
  const cases = [
    {
      name: "another app's notification",
      secret: a.browserSecret,
      notificationId: idB,
      endpoint: a.subscription.endpoint,
    },
    {
      name: "another app's subscriber",
      secret: a.browserSecret,
      notificationId: idA,
      endpoint: b.subscription.endpoint,
    },
    {
      name: 'an unknown endpoint',
      secret: a.browserSecret,
      notificationId: idA,
      endpoint: fakeSubscription().endpoint,
    },
    {
      name: 'an unknown notification',
      secret: a.browserSecret,
      notificationId: crypto.randomUUID(),
      endpoint: a.subscription.endpoint,
    },
    {
      name: 'the test notification',
      secret: a.browserSecret,
      notificationId: 'test',
      endpoint: a.subscription.endpoint,
    },
    {
      name: 'an id that is no uuid',
      secret: a.browserSecret,
      notificationId: 'not-a-uuid',
      endpoint: a.subscription.endpoint,
    },
  ];
  for (const { name, secret, notificationId, endpoint } of cases) {
    const response = await report(secret, { notificationId, endpoint, type: 'clicked' });
    t.equal(response.statusCode, 202, name);
    t.strictSame(response.json(), {}, `${name}: the same answer`);
  }
  t.equal((await app.engagement.flush()).counted, 0, 'nothing counted');
  t.strictSame(await counts(a, idA), { shown: 0, clicked: 0 });
  t.strictSame(await counts(b, idB), { shown: 0, clicked: 0 });
  const [row] = await sql`select count(*)::int as n from notification_events where notification_id in (${idA}, ${idB})`;
  t.equal(row?.n, 0);
});

t.test('malformed bodies get the exact contract errors', async (t) => {
  const endpoint = a.subscription.endpoint;
  const id = crypto.randomUUID();
  assertError(t, await report(a.browserSecret, { endpoint, type: 'shown' }), 'MISSING_FIELDS');
  assertError(t, await report(a.browserSecret, { notificationId: id, type: 'shown' }), 'MISSING_FIELDS');
  assertError(t, await report(a.browserSecret, { notificationId: id, endpoint }), 'MISSING_FIELDS');
  assertError(t, await report(a.browserSecret, { notificationId: id, endpoint, type: 'opened' }), 'INVALID_INPUT');
  assertError(t, await report(a.browserSecret, { notificationId: 42, endpoint, type: 'shown' }), 'INVALID_INPUT');
  assertError(
    t,
    await report(a.browserSecret, { notificationId: id, endpoint: 'http://fcm.googleapis.com/x', type: 'shown' }),
    'INVALID_URL',
  );
  assertError(
    t,
    await report(a.browserSecret, { notificationId: id, endpoint: 'https://evil.example/x', type: 'shown' }),
    'INVALID_ENDPOINT',
  );
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/events',
      payload: { notificationId: id, endpoint, type: 'shown' },
    }),
    'UNAUTHORIZED',
  );
  assertError(t, await report('wpk_nope', { notificationId: id, endpoint, type: 'shown' }), 'INVALID_API_KEY');
});

t.test('every key scope may report; CORS like /subscribe; allowedOrigins applies to browser keys', async (t) => {
  const id = await send(a);
  const notifyKey = await report(a.secret, { notificationId: id, endpoint: a.subscription.endpoint, type: 'shown' });
  t.equal(notifyKey.statusCode, 202, 'a notify key');
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/events',
    headers: {
      origin: 'https://shop.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    },
  });
  t.equal(preflight.statusCode, 204);
  t.equal(preflight.headers['access-control-allow-origin'], '*');
  t.match(String(preflight.headers['access-control-allow-headers']), /authorization/);

  const patched = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${a.app.id}`,
    headers: bearer(a.user.token),
    payload: { allowedOrigins: ['https://shop.example'] },
  });
  t.equal(patched.statusCode, 200);
  const event = { notificationId: id, endpoint: a.subscription.endpoint, type: 'clicked' };
  assertError(t, await report(a.browserSecret, event, { origin: 'https://other.example' }), 'ORIGIN_NOT_ALLOWED');
  t.equal((await report(a.browserSecret, event, { origin: 'https://shop.example' })).statusCode, 202);
  await app.engagement.flush();
  t.strictSame(await counts(a, id), { shown: 1, clicked: 1 });
});

t.test('a burst of 10,000 shown events: 10,000 counted with a bounded number of database writes', async (t) => {
  const owner = await ownerWithSubscriber();
  const id = await send(owner);
  const endpoints = Array.from({ length: 10_000 }, (_, i) => `https://fcm.googleapis.com/fcm/send/burst-${i}`);
  await sql`insert into subscriptions (app_id, endpoint, p256dh, auth)
    select ${owner.app.id}, e, 'p', 'a' from unnest(${endpoints}::text[]) as e`;
  // As if the send had gone to all of them: one delivery chunk holding every subscription.
  await sql`insert into notification_chunks (notification_id, app_id, notification_created_at, first_subscription_id,
      attempt, subscription_ids, last_subscription_id)
    select ${id}, ${owner.app.id}, (select created_at from notifications where id = ${id}), min(id::text)::uuid, 1,
      array_agg(id order by id), max(id::text)::uuid
    from subscriptions where app_id = ${owner.app.id}
      and id <> all(select unnest(subscription_ids) from notification_chunks where notification_id = ${id})`;

  // Real writes, counted by PostgreSQL itself: row updates of the notification, insert statements.
  await sql`create table write_log (what text not null)`;
  await sql`create function log_notification_update() returns trigger language plpgsql as $$
    begin insert into write_log values ('notification row update'); return null; end $$`;
  await sql`create trigger count_updates after update on notifications for each row execute function log_notification_update()`;
  await sql`create function log_event_insert() returns trigger language plpgsql as $$
    begin insert into write_log values ('event insert statement'); return null; end $$`;
  await sql`create trigger count_inserts after insert on notification_events for each statement execute function log_event_insert()`;

  for (let start = 0; start < endpoints.length; start += 100) {
    const answers = await Promise.all(
      endpoints
        .slice(start, start + 100)
        .map((endpoint) => report(owner.browserSecret, { notificationId: id, endpoint, type: 'shown' })),
    );
    if (answers.some((answer) => answer.statusCode !== 202)) throw new Error('an event was not accepted');
  }
  const flushed = await app.engagement.flush();
  t.equal(flushed.counted, 10_000);
  t.ok(flushed.batches <= 2, `one statement per 5,000 events (${flushed.batches})`);
  t.strictSame(await counts(owner, id), { shown: 10_000, clicked: 0 });
  const writes = await sql`select what, count(*)::int as n from write_log group by what order by what`;
  const byKind = Object.fromEntries(writes.map((row) => [row.what, row.n]));
  t.ok(
    byKind['notification row update'] <= 2,
    `notification row updated ${byKind['notification row update']} times, not 10,000`,
  );
  t.ok(byKind['event insert statement'] <= 2, `${byKind['event insert statement']} insert statements, not 10,000`);
  const [events] = await sql`select count(*)::int as n from notification_events where notification_id = ${id}`;
  t.equal(events?.n, 10_000, 'one de-duplication row per event');
});

t.test(
  'closing an API instance flushes what it buffered',
  {
    skip:
      testCoordination() === 'process' &&
      'a second API process on one database is refused with in-process coordination',
  },
  async (t) => {
    const owner = await ownerWithSubscriber();
    const id = await send(owner);
    // A second API instance on the same database and Redis prefix, closed by this test.
    const second = await buildApp(ctx.config, { logger: false });
    const event = { notificationId: id, endpoint: owner.subscription.endpoint, type: 'shown' };
    const answer = await second.inject({
      method: 'POST',
      url: '/api/v1/events',
      headers: bearer(owner.browserSecret),
      payload: event,
    });
    t.equal(answer.statusCode, 202);
    await second.close();
    t.strictSame(await counts(owner, id), { shown: 1, clicked: 0 }, 'counted by the flush on close');
  },
);

t.test('a flush that dies before trimming counts nothing twice', async (t) => {
  const owner = await ownerWithSubscriber();
  const id = await send(owner);
  t.equal(
    (await report(owner.browserSecret, { notificationId: id, endpoint: owner.subscription.endpoint, type: 'shown' }))
      .statusCode,
    202,
  );
  await app.engagement.flush();
  t.strictSame(await counts(owner, id), { shown: 1, clicked: 0 });

  // The buffer is left untrimmed (as by a process killed between COMMIT and the trim): replaying it is harmless.
  const buffer = app.coordination.engagement;
  const [subscription] = await sql`select id from subscriptions where endpoint = ${owner.subscription.endpoint}`;
  for (const entry of [`${id}|${subscription?.id}|s`, `${id}|${subscription?.id}|c`]) await buffer.push(entry);
  t.equal((await app.engagement.flush()).counted, 1, 'only the click is new');
  for (const entry of [`${id}|${subscription?.id}|s`, `${id}|${subscription?.id}|c`]) await buffer.push(entry);
  t.equal((await app.engagement.flush()).counted, 0, 'replayed: nothing new');
  t.strictSame(await counts(owner, id), { shown: 1, clicked: 1 });
  t.equal(await buffer.length(), 0, 'the buffer is empty after a flush');
});
