import { waitFor } from '@webpush/testing';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createApp, fakeSubscription, ownerWithKey, registerUser, subscribe } from '../helper.js';

// GET/POST /apps/:appId/notifications: the dashboard's history and its send (docs/dashboard.md). No worker runs here, so accepted notifications stay queued.
const ctx = await buildTestApp(t, {
  RATE_LIMIT_API_KEY_MAX: '100000',
  RATE_LIMIT_REGISTER_MAX: '1000',
  OPS_USERNAME: 'ops',
  OPS_PASSWORD: 'metrics-password',
});
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

const list = (token: string, appId: string, query = '') =>
  app.inject({ method: 'GET', url: `/api/v1/apps/${appId}/notifications${query}`, headers: bearer(token) });
const send = (owner: Owner, payload: unknown, headers: Record<string, string> = {}, appId = owner.app.id) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/notifications`,
    headers: { ...bearer(owner.user.token), ...headers },
    payload: payload as object,
  });
const notify = (owner: Owner, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: { ...bearer(owner.secret), ...headers },
    payload: payload as object,
  });

const monthlyUsage = async (userId: string) => {
  const [row] = await sql`select sends::int as sends from monthly_usage
    where user_id = ${userId} and month = date_trunc('month', now() at time zone 'UTC')::date`;
  return (row?.sends as number | undefined) ?? 0;
};
const setMonthlyUsage = (userId: string, sends: number) =>
  sql`insert into monthly_usage (user_id, month, sends)
    values (${userId}, date_trunc('month', now() at time zone 'UTC')::date, ${sends})
    on conflict (user_id, month) do update set sends = excluded.sends`;
const rowCount = async (appId: string) =>
  Number((await sql`select count(*)::int as n from notifications where app_id = ${appId}`)[0]?.n);

interface ListedNotification {
  id: string;
  status: string;
  targets: number;
  sent: number;
  failed: number;
  expired: number;
  createdAt: string;
  completedAt: string | null;
  title: string;
  body: string;
  url?: string;
  icon?: string;
  badge?: string;
}
interface ListBody {
  notifications: ListedNotification[];
  nextCursor: string | null;
}

/** Inserts `count` finished notifications straight into the table; some share a `created_at` to test the id tie-break. */
async function seedNotifications(appId: string, count: number) {
  await sql`
    insert into notifications (app_id, payload, ttl, urgency, target_kind, status, targets, sent, created_at, completed_at)
    select ${appId}, jsonb_build_object('title', 'Seed ' || i, 'body', 'Body ' || i), 60, 'normal', 'all', 'completed',
      1, 1, timestamptz '2026-01-01T00:00:00Z' + (i / 3) * interval '1 second' + (i % 2) * interval '1 microsecond',
      timestamptz '2026-01-01T00:00:00Z' + (i / 3) * interval '1 second'
    from generate_series(1, ${count}) as i`;
  const rows = await sql`select id from notifications where app_id = ${appId} order by created_at desc, id desc`;
  return rows.map((row) => row.id as string);
}

/** Walks every page with `limit`, returning the ids in order and the page sizes. */
async function walk(token: string, appId: string, limit: number | null) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const params = new URLSearchParams();
    if (limit !== null) params.set('limit', String(limit));
    if (cursor !== null) params.set('cursor', cursor);
    const query = params.size > 0 ? `?${params}` : '';
    const response = await list(token, appId, query);
    if (response.statusCode !== 200) throw new Error(`list failed: ${response.body}`);
    const body = response.json() as ListBody;
    ids.push(...body.notifications.map((notification) => notification.id));
    sizes.push(body.notifications.length);
    cursor = body.nextCursor;
    if (cursor === null) break;
  }
  return { ids, sizes };
}

const owner = await ownerWithKey(app, 'notify');
const [first, second, third] = [
  await subscribe(app, owner.secret),
  await subscribe(app, owner.secret),
  await subscribe(app, owner.secret),
];
if (!first || !second || !third) throw new Error('subscriptions were not made');
await sql`update subscriptions set status = 'expired', expired_at = now() where id = ${third.id}`;
const stranger = await ownerWithKey(app, 'notify');

t.test(
  'POST /apps/:appId/notifications answers 202 as /notify does, stores the row and queues the fan-out',
  async (t) => {
    const response = await send(owner, { title: 'Hello', body: 'From the dashboard', url: 'https://example.com/a' });
    t.equal(response.statusCode, 202);
    const body = response.json() as { notification: { id: string } };
    t.strictSame(body, { notification: { id: body.notification.id, status: 'queued', targets: 2 } });
    t.match(body.notification.id, UUID);

    const [row] = await sql`select * from notifications where id = ${body.notification.id}`;
    t.match(row, {
      app_id: owner.app.id,
      status: 'queued',
      targets: 2,
      target_kind: 'all',
      subscription_ids: null,
      ttl: 86_400,
      urgency: 'normal',
    });
    t.strictSame(row?.payload, { title: 'Hello', body: 'From the dashboard', url: 'https://example.com/a' });
    await waitFor(
      async () => (await app.queues.fanOut.getJobState(body.notification.id)) === 'waiting',
      'the fan-out job is queued',
    );
  },
);

t.test('the session send targets one endpoint like /notify: 404 unknown, 410 expired', async (t) => {
  const response = await send(owner, { title: 'One', body: 'Only you', endpoint: first.endpoint, urgency: 'high' });
  t.equal(response.statusCode, 202);
  const { notification } = response.json() as { notification: { id: string; targets: number } };
  t.equal(notification.targets, 1);
  const [row] =
    await sql`select target_kind, subscription_ids, urgency from notifications where id = ${notification.id}`;
  t.strictSame({ ...row }, { target_kind: 'endpoint', subscription_ids: [first.id], urgency: 'high' });

  assertError(t, await send(owner, { title: 'T', body: 'B', endpoint: third.endpoint }), 'SUBSCRIPTION_EXPIRED');
  assertError(t, await send(owner, { title: 'T', body: 'B', endpoint: fakeSubscription().endpoint }), 'NOT_FOUND');
  const theirs = await subscribe(app, stranger.secret);
  assertError(t, await send(owner, { title: 'T', body: 'B', endpoint: theirs.endpoint }), 'NOT_FOUND');
});

t.test('the session send checks fields in the contract order, with /notify’s codes', async (t) => {
  const cases: [string, unknown, Parameters<typeof assertError>[2]][] = [
    ['title missing', { body: 'B' }, 'MISSING_FIELDS'],
    ['empty body', { title: 'T', body: '' }, 'MISSING_FIELDS'],
    ['title missing beats a bad url', { body: 'B', url: 'http://example.com' }, 'MISSING_FIELDS'],
    ['http url', { title: 'T', body: 'B', url: 'http://example.com' }, 'INVALID_URL'],
    ['http icon', { title: 'T', body: 'B', icon: 'http://example.com/i.png' }, 'INVALID_URL'],
    ['endpoint off the allowlist', { title: 'T', body: 'B', endpoint: 'https://evil.example/p/1' }, 'INVALID_ENDPOINT'],
    ['unknown urgency', { title: 'T', body: 'B', urgency: 'urgent' }, 'INVALID_INPUT'],
    ['ttl as a string', { title: 'T', body: 'B', ttl: '60' }, 'INVALID_INPUT'],
    ['body not an object', ['title', 'body'], 'INVALID_INPUT'],
    ['payload over 3,072 bytes', { title: 'あ'.repeat(1_100), body: 'B' }, 'PAYLOAD_TOO_LARGE'],
  ];
  for (const [name, payload, code] of cases) {
    t.test(name, async (t) => assertError(t, await send(owner, payload), code));
  }
  t.test('malformed JSON', async (t) => {
    const response = await app.inject({
      method: 'POST',
      url: `/api/v1/apps/${owner.app.id}/notifications`,
      headers: { ...bearer(owner.user.token), 'content-type': 'application/json' },
      payload: '{"title":',
    });
    assertError(t, response, 'INVALID_INPUT');
  });
});

t.test('the session send counts toward the owner’s month and is refused whole past the limit', async (t) => {
  const spender = await ownerWithKey(app, 'notify');
  await subscribe(app, spender.secret);
  await subscribe(app, spender.secret);
  t.equal((await send(spender, { title: 'A', body: 'A' })).statusCode, 202);
  t.equal(await monthlyUsage(spender.user.user.id), 2, 'targets counted');

  await setMonthlyUsage(spender.user.user.id, 30_000 - 1);
  assertError(t, await send(spender, { title: 'T', body: 'B' }), 'MONTHLY_LIMIT_EXCEEDED');
  t.equal(await rowCount(spender.app.id), 1, 'nothing stored');
  t.equal(await monthlyUsage(spender.user.user.id), 29_999, 'nothing reserved');

  await sql`update users set plan = 'pro' where id = ${spender.user.user.id}`;
  t.equal((await send(spender, { title: 'T', body: 'B' })).statusCode, 202, 'the owner’s plan decides: pro has room');
  t.equal(await monthlyUsage(spender.user.user.id), 30_001);
});

t.test('Idempotency-Key is the app’s, shared with /notify, for 24 h', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  await subscribe(app, sender.secret);
  const key = { 'idempotency-key': 'dash-1' };
  const firstAnswer = await send(sender, { title: 'Once', body: 'Only' }, key);
  t.equal(firstAnswer.statusCode, 202);
  const again = await send(sender, { title: 'Once', body: 'Only' }, key);
  t.equal(again.statusCode, 202);
  t.equal(again.body, firstAnswer.body, 'the first answer');
  t.equal(again.headers['idempotent-replayed'], 'true');
  const viaKey = await notify(sender, { title: 'Once', body: 'Only' }, key);
  t.equal(viaKey.body, firstAnswer.body, 'the same key on /notify replays the session send');
  const notifyFirst = await notify(sender, { title: 'Key', body: 'First' }, { 'idempotency-key': 'api-1' });
  const sessionAfter = await send(sender, { title: 'Key', body: 'First' }, { 'idempotency-key': 'api-1' });
  t.equal(sessionAfter.body, notifyFirst.body, 'and the other way round');
  t.equal(await rowCount(sender.app.id), 2, 'two notifications stored');
  t.equal(await monthlyUsage(sender.user.user.id), 2, 'each counted once');

  // Another app's owner using the same key gets their own notification.
  await subscribe(app, stranger.secret);
  const theirs = await send(stranger, { title: 'Once', body: 'Only' }, key);
  t.not(theirs.body, firstAnswer.body);

  assertError(t, await send(sender, { title: 'T', body: 'B' }, { 'idempotency-key': 'has space' }), 'INVALID_INPUT');
});

t.test('GET lists the app’s notifications newest first with their content and counts', async (t) => {
  const lister = await ownerWithKey(app, 'notify');
  await subscribe(app, lister.secret);
  const older = await send(lister, {
    title: 'Older',
    body: 'First',
    url: 'https://example.com/u',
    icon: 'https://example.com/i.png',
    badge: 'https://example.com/b.png',
  });
  const newer = await notify(lister, { title: 'Newer', body: 'Second' });
  const olderId = (older.json() as { notification: { id: string } }).notification.id;
  const newerId = (newer.json() as { notification: { id: string } }).notification.id;
  await sql`update notifications set status = 'completed', sent = 1, completed_at = now() where id = ${olderId}`;

  const response = await list(lister.user.token, lister.app.id);
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/);
  const body = response.json() as ListBody;
  t.equal(body.nextCursor, null, 'one page');
  t.strictSame(
    body.notifications.map((notification) => notification.id),
    [newerId, olderId],
    'newest first, API-key sends included',
  );
  const [newest, oldest] = body.notifications;
  t.strictSame(newest, {
    id: newerId,
    status: 'queued',
    targets: 1,
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
    createdAt: newest?.createdAt,
    completedAt: null,
    title: 'Newer',
    body: 'Second',
  });
  t.strictSame(oldest, {
    id: olderId,
    status: 'completed',
    targets: 1,
    sent: 1,
    failed: 0,
    expired: 0,
    skipped: 0,
    shown: 0,
    clicked: 0,
    actionClicks: {},
    converted: 0,
    conversionValue: 0,
    winner: null,
    createdAt: oldest?.createdAt,
    completedAt: oldest?.completedAt,
    title: 'Older',
    body: 'First',
    url: 'https://example.com/u',
    icon: 'https://example.com/i.png',
    badge: 'https://example.com/b.png',
  });
  t.type(oldest?.completedAt, 'string');

  // The same object as GET /notifications/:id.
  const single = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${olderId}`,
    headers: bearer(lister.secret),
  });
  t.strictSame((single.json() as { notification: unknown }).notification, oldest);
  // And the dashboard's own look-up of one notification, with the session.
  const bySession = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${lister.app.id}/notifications/${olderId}`,
    headers: bearer(lister.user.token),
  });
  t.equal(bySession.statusCode, 200);
  t.strictSame((bySession.json() as { notification: unknown }).notification, oldest);
  const stranger = await registerUser(app);
  const theirs = await createApp(app, stranger.token);
  assertError(
    t,
    await app.inject({
      method: 'GET',
      url: `/api/v1/apps/${theirs.id}/notifications/${olderId}`,
      headers: bearer(stranger.token),
    }),
    'NOT_FOUND',
  );

  const newcomer = await registerUser(app);
  const empty = await list(newcomer.token, (await createApp(app, newcomer.token)).id);
  t.strictSame(empty.json(), { notifications: [], nextCursor: null }, 'an app without notifications');
});

t.test('keyset pagination walks every notification once, in order, honouring the page size', async (t) => {
  const paged = await ownerWithKey(app, 'notify');
  const expected = await seedNotifications(paged.app.id, 45);

  const defaults = await walk(paged.user.token, paged.app.id, null);
  t.strictSame(defaults.sizes, [20, 20, 5], 'default page size 20');
  t.strictSame(defaults.ids, expected, 'no duplicates, no gaps, newest first');

  const sevens = await walk(paged.user.token, paged.app.id, 7);
  t.strictSame(sevens.sizes, [7, 7, 7, 7, 7, 7, 3]);
  t.strictSame(sevens.ids, expected);

  const exact = await walk(paged.user.token, paged.app.id, 45);
  t.strictSame(exact.sizes, [45], 'a page that ends exactly at the last row has no next cursor');
  const all = await walk(paged.user.token, paged.app.id, 100);
  t.strictSame(all.sizes, [45]);

  const single = await walk(paged.user.token, paged.app.id, 1);
  t.equal(single.ids.length, 45);
  t.strictSame(single.ids, expected, 'rows sharing a created_at are ordered by id, none skipped');

  // A row added while paging shows up on page one, not in the middle of the walk.
  const firstPage = (await list(paged.user.token, paged.app.id, '?limit=10')).json() as ListBody;
  t.equal((await send(paged, { title: 'New', body: 'One' })).statusCode, 202);
  const secondPage = (
    await list(paged.user.token, paged.app.id, `?limit=10&cursor=${firstPage.nextCursor}`)
  ).json() as ListBody;
  t.strictSame(
    secondPage.notifications.map((notification) => notification.id),
    expected.slice(10, 20),
  );
});

t.test('a malformed limit or cursor is 400 INVALID_INPUT', async (t) => {
  const bad = [
    '?limit=0',
    '?limit=101',
    '?limit=abc',
    '?limit=1.5',
    '?limit=-1',
    '?limit=',
    '?limit=1&limit=2',
    '?cursor=',
    '?cursor=not-a-cursor!',
    '?cursor=bm90LWEtY3Vyc29y',
    `?cursor=${Buffer.from('2026-01-01T00:00:00.000000Z|not-a-uuid').toString('base64url')}`,
    `?cursor=${Buffer.from('2026-02-30T00:00:00.000000Z|00000000-0000-4000-8000-000000000000').toString('base64url')}`,
    `?cursor=${Buffer.from('2026-01-01T00:00:00Z|00000000-0000-4000-8000-000000000000').toString('base64url')}`,
    `?cursor=${'a'.repeat(200)}`,
  ];
  for (const query of bad) {
    t.test(query, async (t) => assertError(t, await list(owner.user.token, owner.app.id, query), 'INVALID_INPUT'));
  }
  const edge = await list(owner.user.token, owner.app.id, '?limit=100');
  t.equal(edge.statusCode, 200, 'limit=100 is allowed');
  const valid = Buffer.from('2026-01-01T00:00:00.000000Z|00000000-0000-4000-8000-000000000000').toString('base64url');
  const before2026 = await list(owner.user.token, owner.app.id, `?cursor=${valid}`);
  t.strictSame(before2026.json(), { notifications: [], nextCursor: null }, 'a well-formed cursor is a position');
});

t.test('another user’s app, an unknown app or a malformed id is 404 on both routes', async (t) => {
  const other = stranger.app.id;
  const theirsBefore = await rowCount(other);
  for (const appId of [other, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
    assertError(t, await list(owner.user.token, appId), 'NOT_FOUND');
    assertError(t, await send(owner, { title: 'T', body: 'B' }, {}, appId), 'NOT_FOUND');
  }
  t.equal(await rowCount(other), theirsBefore, 'nothing sent on their app');
});

t.test('a session is required: no token, an API key or a dead session are refused', async (t) => {
  const url = `/api/v1/apps/${owner.app.id}/notifications`;
  assertError(t, await app.inject({ method: 'GET', url }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'POST', url, payload: { title: 'T', body: 'B' } }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'GET', url, headers: bearer(owner.secret) }), 'INVALID_SESSION');
  assertError(t, await app.inject({ method: 'GET', url, headers: bearer('wps_nope') }), 'INVALID_SESSION');
  const cookie = await app.inject({ method: 'GET', url, cookies: { wp_session: owner.user.token } });
  t.equal(cookie.statusCode, 200, 'the session cookie works too');
});

t.test('session sends are rate limited per user', async (t) => {
  const limited = await buildApp(
    { ...ctx.config, rateLimit: { ...ctx.config.rateLimit, apiKeyMax: 2 } },
    { logger: false },
  );
  t.teardown(() => limited.close());
  const user = await registerUser(limited);
  const created = await createApp(limited, user.token);
  const post = (token: string, appId: string) =>
    limited.inject({
      method: 'POST',
      url: `/api/v1/apps/${appId}/notifications`,
      headers: bearer(token),
      payload: { title: 'T', body: 'B' },
    });
  t.equal((await post(user.token, created.id)).statusCode, 202);
  t.equal((await post(user.token, created.id)).statusCode, 202);
  const third = await post(user.token, created.id);
  assertError(t, third, 'RATE_LIMITED');
  t.equal(third.headers['retry-after'], String(ctx.config.rateLimit.windowSeconds));

  const neighbour = await registerUser(limited);
  const theirApp = await createApp(limited, neighbour.token);
  t.equal((await post(neighbour.token, theirApp.id)).statusCode, 202, 'another user has their own budget');
});

t.test('without ENCRYPTION_KEY the session send answers 503 CONFIG_ERROR', async (t) => {
  const keyless = await buildApp({ ...ctx.config, encryptionKey: null }, { logger: false });
  t.teardown(() => keyless.close());
  const response = await keyless.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/notifications`,
    headers: bearer(owner.user.token),
    payload: { title: 'T', body: 'B' },
  });
  assertError(t, response, 'CONFIG_ERROR');
});

t.test('GET /metrics counts session sends under their own route label', async (t) => {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Basic ${Buffer.from('ops:metrics-password').toString('base64')}` },
  });
  t.match(response.body, /webpush_notifications_accepted_total\{route="session"\} [1-9]/);
});
