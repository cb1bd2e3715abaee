import { setNotificationCreatedAt, waitFor } from '@webpush/testing';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey, subscribe } from '../helper.js';

// The API side of sending: validation, targets, accounting, idempotency. No worker runs here, so
// accepted notifications stay queued; delivery is tested in apps/worker/test.
const ctx = await buildTestApp(t, {
  RATE_LIMIT_API_KEY_MAX: '100000',
  RATE_LIMIT_REGISTER_MAX: '1000',
  OPS_USERNAME: 'ops',
  OPS_PASSWORD: 'metrics-password',
});
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

const notify = (owner: Owner, payload: unknown, headers: Record<string, string> = {}, path = '/api/v1/notify') =>
  app.inject({
    method: 'POST',
    url: path,
    headers: { ...bearer(owner.secret), ...headers },
    payload: payload as object,
  });
const notifyBatch = (owner: Owner, payload: unknown, headers: Record<string, string> = {}) =>
  notify(owner, payload, headers, '/api/v1/notify/batch');
const getNotification = (owner: Owner, id: string) =>
  app.inject({ method: 'GET', url: `/api/v1/notifications/${id}`, headers: bearer(owner.secret) });

const expire = (id: string) => sql`update subscriptions set status = 'expired', expired_at = now() where id = ${id}`;

const monthlyUsage = async (userId: string) => {
  const [row] = await sql`select sends::int as sends from monthly_usage
    where user_id = ${userId} and month = date_trunc('month', now() at time zone 'UTC')::date`;
  return (row?.sends as number | undefined) ?? 0;
};
const setMonthlyUsage = (userId: string, sends: number) =>
  sql`insert into monthly_usage (user_id, month, sends)
    values (${userId}, date_trunc('month', now() at time zone 'UTC')::date, ${sends})
    on conflict (user_id, month) do update set sends = excluded.sends`;
const notificationRows = (appId: string) =>
  sql`select id, status, targets, target_kind, subscription_ids, payload, ttl, urgency, topic
    from notifications where app_id = ${appId} order by created_at`;

interface Accepted {
  notification: { id: string; status: 'queued'; targets: number };
  unknownEndpoints?: string[];
  expiredEndpoints?: string[];
}
const accepted = (response: { json(): unknown }) => response.json() as Accepted;

const sender = await ownerWithKey(app, 'notify');
const [first, second, third] = [
  await subscribe(app, sender.secret),
  await subscribe(app, sender.secret),
  await subscribe(app, sender.secret),
];
if (!first || !second || !third) throw new Error('subscriptions were not made');
await expire(third.id);

t.test('POST /notify without endpoint targets every active subscriber and queues one fan-out job', async (t) => {
  const response = await notify(sender, { title: 'Hello', body: 'World', url: 'https://example.com/a' });
  t.equal(response.statusCode, 202);
  const body = accepted(response);
  t.strictSame(body, { notification: { id: body.notification.id, status: 'queued', targets: 2 } });
  t.match(body.notification.id, UUID);

  const [row] = await sql`select * from notifications where id = ${body.notification.id}`;
  t.match(row, {
    app_id: sender.app.id,
    status: 'queued',
    targets: 2,
    target_kind: 'all',
    subscription_ids: null,
    ttl: 86_400,
    urgency: 'normal',
    topic: null,
    sent: 0,
    failed: 0,
    expired: 0,
    skipped: 0,
  });
  t.strictSame(row?.payload, { title: 'Hello', body: 'World', url: 'https://example.com/a' });
  // Queued just after the 202 is written.
  await waitFor(
    async () => (await app.queues.fanOut.getJobState(body.notification.id)) === 'waiting',
    'the fan-out job (id = notification id) is waiting',
  );
});

t.test(
  'notification ids are time-ordered (UUID version 7), from the accept path and from the column default',
  async (t) => {
    const millisecondsOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    const before = Date.now();
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three']) {
      const response = await notify(sender, { title, body: 'ordered' });
      t.equal(response.statusCode, 202, response.body);
      ids.push(accepted(response).notification.id);
    }
    const [row] = await sql<
      { id: string }[]
    >`insert into notifications (app_id, payload, ttl, urgency, target_kind, status, targets)
    values (${sender.app.id}, '{"title":"t","body":"b"}', 60, 'normal', 'all', 'completed', 0) returning id`;
    if (!row) throw new Error('no row');
    ids.push(row.id);
    const after = Date.now();
    for (const id of ids) {
      t.match(id, UUID);
      t.equal(id[14], '7', `${id}: version 7`);
      t.match(id[19], /[89ab]/, `${id}: the RFC 9562 variant`);
      t.ok(millisecondsOf(id) >= before && millisecondsOf(id) <= after, `${id}: holds the millisecond it was made`);
    }
    const times = ids.map(millisecondsOf);
    t.ok(
      times.every((ms, index) => index === 0 || ms >= (times[index - 1] ?? Number.POSITIVE_INFINITY)),
      'a later notification sorts no earlier',
    );
    await sql`delete from notifications where id = ${row.id}`;
  },
);

t.test('ttl, urgency and topic are stored as given', async (t) => {
  const response = await notify(sender, { title: 'T', body: 'B', ttl: 0, urgency: 'high', topic: 'news_1-A' });
  t.equal(response.statusCode, 202);
  const [row] =
    await sql`select ttl, urgency, topic from notifications where id = ${accepted(response).notification.id}`;
  t.strictSame({ ...row }, { ttl: 0, urgency: 'high', topic: 'news_1-A' });
});

t.test('field checks answer in the contract order', async (t) => {
  const cases: [string, unknown, Parameters<typeof assertError>[2]][] = [
    ['title missing', { body: 'B' }, 'MISSING_FIELDS'],
    ['body missing', { title: 'T' }, 'MISSING_FIELDS'],
    ['empty title', { title: '', body: 'B' }, 'MISSING_FIELDS'],
    ['title missing beats a bad url', { body: 'B', url: 'http://example.com' }, 'MISSING_FIELDS'],
    ['http url', { title: 'T', body: 'B', url: 'http://example.com' }, 'INVALID_URL'],
    ['http icon', { title: 'T', body: 'B', icon: 'http://example.com/i.png' }, 'INVALID_URL'],
    ['http badge', { title: 'T', body: 'B', badge: 'ftp://example.com/b.png' }, 'INVALID_URL'],
    ['http endpoint', { title: 'T', body: 'B', endpoint: 'http://fcm.googleapis.com/fcm/send/x' }, 'INVALID_URL'],
    ['bad url beats a bad ttl', { title: 'T', body: 'B', url: 'http://x', ttl: -1 }, 'INVALID_URL'],
    [
      'endpoint off the allowlist',
      { title: 'T', body: 'B', endpoint: 'https://evil.example/push/1' },
      'INVALID_ENDPOINT',
    ],
    ['endpoint without a path', { title: 'T', body: 'B', endpoint: 'https://fcm.googleapis.com/' }, 'INVALID_ENDPOINT'],
    [
      'bad endpoint beats a bad urgency',
      { title: 'T', body: 'B', endpoint: 'https://10.0.0.1/x', urgency: 'x' },
      'INVALID_ENDPOINT',
    ],
    ['negative ttl', { title: 'T', body: 'B', ttl: -1 }, 'INVALID_INPUT'],
    ['ttl over 28 days', { title: 'T', body: 'B', ttl: 2_419_201 }, 'INVALID_INPUT'],
    ['ttl as a string', { title: 'T', body: 'B', ttl: '60' }, 'INVALID_INPUT'],
    ['fractional ttl', { title: 'T', body: 'B', ttl: 1.5 }, 'INVALID_INPUT'],
    ['unknown urgency', { title: 'T', body: 'B', urgency: 'urgent' }, 'INVALID_INPUT'],
    ['topic over 32 characters', { title: 'T', body: 'B', topic: 'a'.repeat(33) }, 'INVALID_INPUT'],
    ['topic outside URL-safe base64', { title: 'T', body: 'B', topic: 'a+b' }, 'INVALID_INPUT'],
    ['title not a string', { title: 5, body: 'B' }, 'INVALID_INPUT'],
    ['body not an object', ['title', 'body'], 'INVALID_INPUT'],
  ];
  for (const [name, payload, code] of cases) {
    t.test(name, async (t) => assertError(t, await notify(sender, payload), code));
  }
  t.test('a ttl of exactly 2,419,200 is accepted', async (t) => {
    t.equal((await notify(sender, { title: 'T', body: 'B', ttl: 2_419_200, topic: 'a'.repeat(32) })).statusCode, 202);
  });
});

t.test('the 3,072-byte rule counts UTF-8 bytes of JSON.stringify of the payload fields', async (t) => {
  const overhead = Buffer.byteLength(JSON.stringify({ title: '', body: 'b' }));
  const exact = { title: 'a'.repeat(3_072 - overhead), body: 'b' };
  t.equal((await notify(sender, exact)).statusCode, 202, 'exactly 3,072 bytes is accepted');
  t.equal(
    (await notify(sender, { ...exact, ttl: 60, urgency: 'low', topic: 'abc', endpoint: first.endpoint })).statusCode,
    202,
    'endpoint, ttl, urgency and topic do not count',
  );
  assertError(t, await notify(sender, { ...exact, title: `${exact.title}a` }), 'PAYLOAD_TOO_LARGE');
  // 'あ' is 3 bytes in UTF-8: 1,017 of them are 3,051 bytes, under 3,072 as characters but not as bytes.
  assertError(t, await notify(sender, { title: 'あ'.repeat(1_017), body: 'b' }), 'PAYLOAD_TOO_LARGE');
  // A quote is one character but two bytes once JSON-escaped.
  const quotes = Math.ceil((3_073 - overhead) / 2);
  assertError(t, await notify(sender, { title: '"'.repeat(quotes), body: 'b' }), 'PAYLOAD_TOO_LARGE');
  t.equal((await notify(sender, { title: '"'.repeat(quotes - 1), body: 'b' })).statusCode, 202);
  const urlPadding = 'x'.repeat(3_100);
  assertError(
    t,
    await notify(sender, { title: 'T', body: 'B', url: `https://example.com/${urlPadding}` }),
    'PAYLOAD_TOO_LARGE',
  );
});

t.test('authentication: a notify or full key sends, a subscribe_only key does not', async (t) => {
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/api/v1/notify', payload: { title: 'T', body: 'B' } }),
    'UNAUTHORIZED',
  );
  const invalid = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer('wpk_not-a-key'),
    payload: { title: 'T', body: 'B' },
  });
  assertError(t, invalid, 'INVALID_API_KEY');
  const browserKey = await createKey(app, sender.user.token, sender.app.id, 'subscribe_only');
  assertError(
    t,
    await notify({ ...sender, secret: browserKey.secret }, { title: 'T', body: 'B' }),
    'INSUFFICIENT_SCOPE',
  );
  assertError(
    t,
    await notifyBatch({ ...sender, secret: browserKey.secret }, { title: 'T', body: 'B', endpoints: [first.endpoint] }),
    'INSUFFICIENT_SCOPE',
  );
  const fullKey = await createKey(app, sender.user.token, sender.app.id, 'full');
  t.equal((await notify({ ...sender, secret: fullKey.secret }, { title: 'T', body: 'B' })).statusCode, 202);
});

t.test('POST /notify with an endpoint', async (t) => {
  const response = await notify(sender, { title: 'One', body: 'Only you', endpoint: first.endpoint });
  t.equal(response.statusCode, 202);
  const body = accepted(response);
  t.equal(body.notification.targets, 1);
  const [row] = await sql`select target_kind, subscription_ids from notifications where id = ${body.notification.id}`;
  t.strictSame({ ...row }, { target_kind: 'endpoint', subscription_ids: [first.id] });

  assertError(t, await notify(sender, { title: 'T', body: 'B', endpoint: third.endpoint }), 'SUBSCRIPTION_EXPIRED');
  assertError(t, await notify(sender, { title: 'T', body: 'B', endpoint: fakeSubscription().endpoint }), 'NOT_FOUND');
  const other = await ownerWithKey(app, 'notify');
  const theirs = await subscribe(app, other.secret);
  assertError(t, await notify(sender, { title: 'T', body: 'B', endpoint: theirs.endpoint }), 'NOT_FOUND');
});

t.test('POST /notify/batch', async (t) => {
  const unknown = fakeSubscription().endpoint;
  const response = await notifyBatch(sender, {
    title: 'Batch',
    body: 'Some of you',
    endpoints: [first.endpoint, second.endpoint, third.endpoint, unknown, first.endpoint],
  });
  t.equal(response.statusCode, 202);
  const body = accepted(response);
  t.strictSame(body, {
    notification: { id: body.notification.id, status: 'queued', targets: 2 },
    unknownEndpoints: [unknown],
    expiredEndpoints: [third.endpoint],
  });
  const [row] = await sql`select target_kind, subscription_ids from notifications where id = ${body.notification.id}`;
  t.equal(row?.target_kind, 'batch');
  t.strictSame([...((row?.subscription_ids as string[] | undefined) ?? [])].sort(), [first.id, second.id].sort());

  const many = Array.from({ length: 101 }, () => fakeSubscription().endpoint);
  assertError(t, await notifyBatch(sender, { title: 'T', body: 'B', endpoints: many }), 'TOO_MANY_ENDPOINTS');
  assertError(
    t,
    await notifyBatch(sender, { title: 'T', body: 'B', endpoints: [...many.slice(1), 'http://x'] }),
    'TOO_MANY_ENDPOINTS',
  );
  assertError(t, await notifyBatch(sender, { body: 'B', endpoints: many }), 'MISSING_FIELDS');
  t.equal(
    (await notifyBatch(sender, { title: 'T', body: 'B', endpoints: many.slice(0, 100) })).statusCode,
    202,
    '100 endpoints are allowed',
  );
  assertError(t, await notifyBatch(sender, { title: 'T', body: 'B' }), 'MISSING_FIELDS');
  assertError(t, await notifyBatch(sender, { title: 'T', body: 'B', endpoints: [] }), 'MISSING_FIELDS');
  assertError(
    t,
    await notifyBatch(sender, { title: 'T', body: 'B', endpoints: [first.endpoint, 'http://x/y'] }),
    'INVALID_URL',
  );
  assertError(
    t,
    await notifyBatch(sender, { title: 'T', body: 'B', endpoints: [first.endpoint, 'https://evil.example/p'] }),
    'INVALID_ENDPOINT',
  );
  assertError(t, await notifyBatch(sender, { title: 'T', body: 'B', endpoints: first.endpoint }), 'INVALID_INPUT');
  assertError(
    t,
    await notifyBatch(sender, { title: 'T', body: 'B', url: 'http://x', endpoints: [first.endpoint] }),
    'INVALID_URL',
  );
  assertError(
    t,
    await notifyBatch(sender, { title: 'x'.repeat(3_100), body: 'B', endpoints: [first.endpoint] }),
    'PAYLOAD_TOO_LARGE',
  );
});

t.test('a notification without targets is accepted and completed at once; nothing is queued', async (t) => {
  const lonely = await ownerWithKey(app, 'notify');
  const response = await notify(lonely, { title: 'Anyone?', body: 'No' });
  t.equal(response.statusCode, 202);
  const { notification } = accepted(response);
  t.strictSame(notification, { id: notification.id, status: 'queued', targets: 0 });
  const status = (await getNotification(lonely, notification.id)).json() as { notification: Record<string, unknown> };
  t.match(status.notification, { status: 'completed', targets: 0, sent: 0, failed: 0, expired: 0 });
  t.type(status.notification.completedAt, 'string');
  t.equal(await app.queues.fanOut.getJobState(notification.id), 'unknown');
  t.equal(await monthlyUsage(lonely.user.user.id), 0);
});

t.test('GET /notifications/:id shows progress, only to keys of the same app', async (t) => {
  const created = accepted(await notify(sender, { title: 'Status', body: 'Check' }));
  const response = await getNotification(sender, created.notification.id);
  t.equal(response.statusCode, 200);
  const body = response.json() as { notification: { createdAt: string } };
  t.strictSame(body, {
    notification: {
      id: created.notification.id,
      status: 'queued',
      targets: 2,
      sent: 0,
      failed: 0,
      expired: 0,
      skipped: 0,
      shown: 0,
      clicked: 0,
      actionClicks: {},
      converted: 0,
      conversionValue: 0,
      winner: null,
      createdAt: body.notification.createdAt,
      completedAt: null,
      title: 'Status',
      body: 'Check',
    },
  });
  t.ok(Math.abs(Date.parse(body.notification.createdAt) - Date.now()) < 60_000);

  const other = await ownerWithKey(app, 'full');
  assertError(t, await getNotification(other, created.notification.id), 'NOT_FOUND');
  assertError(t, await getNotification(sender, 'not-a-uuid'), 'NOT_FOUND');
  assertError(t, await getNotification(sender, '00000000-0000-4000-8000-000000000000'), 'NOT_FOUND');
  const browserKey = await createKey(app, sender.user.token, sender.app.id, 'subscribe_only');
  assertError(
    t,
    await getNotification({ ...sender, secret: browserKey.secret }, created.notification.id),
    'INSUFFICIENT_SCOPE',
  );
});

t.test('monthly usage counts accepted targets; GET /apps/:id shows this month’s sends of the app', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  await subscribe(app, owner.secret);
  await notify(owner, { title: 'A', body: 'A' });
  await notify(owner, { title: 'B', body: 'B' });
  t.equal(await monthlyUsage(owner.user.user.id), 4);
  // Last month's notifications do not count this month.
  const old = accepted(await notify(owner, { title: 'C', body: 'C' }));
  await setNotificationCreatedAt(sql, old.notification.id, new Date(Date.now() - 40 * 86_400_000));
  const stats = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal((stats.json() as { app: { stats: { sendsThisMonth: number } } }).app.stats.sendsThisMonth, 4);
});

t.test('a notification that would pass the monthly limit is refused whole', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  const subscribers = [await subscribe(app, owner.secret), await subscribe(app, owner.secret)];
  await setMonthlyUsage(owner.user.user.id, 30_000 - 1);
  assertError(t, await notify(owner, { title: 'T', body: 'B' }), 'MONTHLY_LIMIT_EXCEEDED');
  const endpoints = subscribers.map((subscriber) => subscriber.endpoint);
  assertError(t, await notifyBatch(owner, { title: 'T', body: 'B', endpoints }), 'MONTHLY_LIMIT_EXCEEDED');
  t.equal((await notificationRows(owner.app.id)).length, 0, 'nothing stored');
  const unknownOnly = await notifyBatch(owner, { title: 'T', body: 'B', endpoints: [fakeSubscription().endpoint] });
  t.equal(accepted(unknownOnly).notification.targets, 0, 'a send to nobody uses nothing and is accepted');
  await sql`delete from notifications where app_id = ${owner.app.id}`;
  t.equal(await monthlyUsage(owner.user.user.id), 29_999, 'nothing reserved');

  await setMonthlyUsage(owner.user.user.id, 30_000 - 2);
  t.equal((await notify(owner, { title: 'T', body: 'B' })).statusCode, 202, 'exactly up to the limit is fine');
  t.equal(await monthlyUsage(owner.user.user.id), 30_000);

  await sql`update users set plan = 'pro' where id = ${owner.user.user.id}`;
  t.equal((await notify(owner, { title: 'T', body: 'B' })).statusCode, 202, 'pro has room');
  await setMonthlyUsage(owner.user.user.id, 3_000_000);
  assertError(t, await notify(owner, { title: 'T', body: 'B' }), 'MONTHLY_LIMIT_EXCEEDED');
  await sql`update users set plan = 'enterprise' where id = ${owner.user.user.id}`;
  t.equal((await notify(owner, { title: 'T', body: 'B' })).statusCode, 202, 'enterprise has no limit');
  t.equal(await monthlyUsage(owner.user.user.id), 3_000_002);
});

t.test('the limit is per user, across apps, and last month does not count', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  await sql`update users set plan = 'pro' where id = ${owner.user.user.id}`;
  const secondApp = await app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(owner.user.token),
    payload: { name: 'Second' },
  });
  const appId = (secondApp.json() as { app: { id: string } }).app.id;
  const key = await createKey(app, owner.user.token, appId, 'notify');
  const sibling: Owner = { ...owner, app: { ...owner.app, id: appId }, key, secret: key.secret };
  await subscribe(app, sibling.secret);
  await sql`insert into monthly_usage (user_id, month, sends)
    values (${owner.user.user.id}, (date_trunc('month', now() at time zone 'UTC') - interval '1 month')::date, 3000000)`;
  await setMonthlyUsage(owner.user.user.id, 3_000_000 - 1);
  t.equal((await notify(owner, { title: 'T', body: 'B' })).statusCode, 202);
  assertError(t, await notify(sibling, { title: 'T', body: 'B' }), 'MONTHLY_LIMIT_EXCEEDED');
});

t.test('fifty simultaneous sends never take the month past its limit', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  await subscribe(app, owner.secret);
  // Room for 21 sends: ten notifications of two targets fit, the eleventh would need one too many.
  await setMonthlyUsage(owner.user.user.id, 30_000 - 21);
  const responses = await Promise.all(
    Array.from({ length: 50 }, (_, i) => notify(owner, { title: `Race ${i}`, body: 'Go' })),
  );
  const statuses = responses.map((response) => response.statusCode);
  t.equal(statuses.filter((status) => status === 202).length, 10, 'ten accepted');
  t.equal(statuses.filter((status) => status === 429).length, 40, 'forty refused');
  for (const response of responses.filter((r) => r.statusCode === 429))
    assertError(t, response, 'MONTHLY_LIMIT_EXCEEDED');
  t.equal(await monthlyUsage(owner.user.user.id), 29_999, 'usage is exact');
  t.equal((await notificationRows(owner.app.id)).length, 10, 'one row per accepted notification');
});

t.test('Idempotency-Key: the same key from the same app within 24 h returns the first answer', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  const key = { 'idempotency-key': 'order-42' };
  const firstResponse = await notify(owner, { title: 'Once', body: 'Only' }, key);
  t.equal(firstResponse.statusCode, 202);
  const again = await notify(owner, { title: 'Once', body: 'Only' }, key);
  t.equal(again.statusCode, 202);
  t.equal(again.body, firstResponse.body, 'same body');
  t.equal(again.headers['idempotent-replayed'], 'true');
  t.equal((await notificationRows(owner.app.id)).length, 1, 'nothing new stored');
  t.equal(await monthlyUsage(owner.user.user.id), 1, 'counted once');

  const otherKey = await notify(owner, { title: 'Once', body: 'Only' }, { 'idempotency-key': 'order-43' });
  t.not(accepted(otherKey).notification.id, accepted(firstResponse).notification.id, 'another key is another send');

  // The same key from another app is that app's own key.
  const stranger = await ownerWithKey(app, 'notify');
  const theirs = await notify(stranger, { title: 'Once', body: 'Only' }, key);
  t.not(accepted(theirs).notification.id, accepted(firstResponse).notification.id);

  // A batch answer replays with its lists.
  const batchKey = { 'idempotency-key': 'batch-1' };
  const unknown = fakeSubscription().endpoint;
  const batch = await notifyBatch(owner, { title: 'B', body: 'B', endpoints: [unknown] }, batchKey);
  const batchAgain = await notifyBatch(owner, { title: 'B', body: 'B', endpoints: [unknown] }, batchKey);
  t.equal(batchAgain.body, batch.body);
  t.strictSame(accepted(batchAgain).unknownEndpoints, [unknown]);

  // The key is the app's, whichever sending route used it first: the first answer comes back as given.
  const crossRoute = await notifyBatch(owner, { title: 'B', body: 'B', endpoints: [unknown] }, key);
  t.equal(crossRoute.statusCode, 202);
  t.equal(crossRoute.body, firstResponse.body, 'the /notify answer, on /notify/batch');
  t.match(crossRoute.headers['content-type'], /^application\/json; charset=utf-8$/);
  const crossBack = await notify(owner, { title: 'B', body: 'B' }, batchKey);
  t.equal(crossBack.body, batch.body, 'the /notify/batch answer, on /notify');
  t.equal((await notificationRows(owner.app.id)).length, 3, 'nothing new stored');

  // After 24 h the key is free again.
  await setNotificationCreatedAt(sql, accepted(firstResponse).notification.id, new Date(Date.now() - 25 * 3_600_000));
  const later = await notify(owner, { title: 'Once', body: 'Only' }, key);
  t.equal(later.statusCode, 202);
  t.not(accepted(later).notification.id, accepted(firstResponse).notification.id, 'a new notification');
  t.equal(later.headers['idempotent-replayed'], undefined);

  assertError(t, await notify(owner, { title: 'T', body: 'B' }, { 'idempotency-key': 'has space' }), 'INVALID_INPUT');
});

t.test('Idempotency-Key holds under concurrency: one notification, one reservation, one answer', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  const responses = await Promise.all(
    Array.from({ length: 10 }, () => notify(owner, { title: 'Once', body: 'Only' }, { 'idempotency-key': 'burst' })),
  );
  t.strictSame(
    responses.map((response) => response.statusCode),
    Array(10).fill(202),
  );
  t.equal(new Set(responses.map((response) => response.body)).size, 1, 'every answer is the first one');
  t.equal((await notificationRows(owner.app.id)).length, 1);
  t.equal(await monthlyUsage(owner.user.user.id), 1);
});

t.test('a refused request does not use up its Idempotency-Key', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  await setMonthlyUsage(owner.user.user.id, 30_000);
  const key = { 'idempotency-key': 'retry-me' };
  assertError(t, await notify(owner, { title: 'T', body: 'B' }, key), 'MONTHLY_LIMIT_EXCEEDED');
  await setMonthlyUsage(owner.user.user.id, 0);
  t.equal((await notify(owner, { title: 'T', body: 'B' }, key)).statusCode, 202);
});

t.test('accepted with Redis unavailable: the row is committed and the answer is still 202', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  await subscribe(app, owner.secret);
  const add = app.queues.fanOut.add.bind(app.queues.fanOut);
  app.queues.fanOut.add = async () => {
    throw new Error('redis is down');
  };
  t.teardown(() => {
    app.queues.fanOut.add = add;
  });
  const response = await notify(owner, { title: 'T', body: 'B' });
  t.equal(response.statusCode, 202);
  const [row] = await notificationRows(owner.app.id);
  t.equal(row?.status, 'queued', 'the reconciler will find it');
});

t.test('without ENCRYPTION_KEY nothing can be signed: sends answer 503 CONFIG_ERROR', async (t) => {
  const keyless = await buildApp({ ...ctx.config, encryptionKey: null }, { logger: false });
  t.teardown(() => keyless.close());
  const response = await keyless.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(sender.secret),
    payload: { title: 'T', body: 'B' },
  });
  assertError(t, response, 'CONFIG_ERROR');
});

t.test('GET /metrics counts accepted and refused sends', async (t) => {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Basic ${Buffer.from('ops:metrics-password').toString('base64')}` },
  });
  t.equal(response.statusCode, 200);
  t.match(response.body, /webpush_notifications_accepted_total\{route="notify"\} \d+/);
  t.match(response.body, /webpush_notifications_refused_total\{code="MONTHLY_LIMIT_EXCEEDED"\} \d+/);
  t.match(response.body, /webpush_notifications_refused_total\{code="INVALID_URL"\} \d+/);
  t.match(response.body, /webpush_queue_jobs\{queue="fan-out",state="waiting"\} [1-9]/);
});
