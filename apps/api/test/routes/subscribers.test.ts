import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, ownerWithKey, subscribe } from '../helper.js';

// GET /apps/:appId/subscribers and DELETE /apps/:appId/subscribers/:subscriberId: the dashboard's
// subscriber list (docs/dashboard.md).
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

interface ListedSubscriber {
  id: string;
  endpoint: string;
  status: 'active' | 'expired';
  uid: string | null;
  tags: Record<string, string>;
  vapidPublicKey: string | null;
  createdAt: string;
}
interface ListBody {
  subscribers: ListedSubscriber[];
  nextCursor: string | null;
}

const list = (token: string, appId: string, query = '') =>
  app.inject({ method: 'GET', url: `/api/v1/apps/${appId}/subscribers${query}`, headers: bearer(token) });
const remove = (token: string, appId: string, subscriberId: string) =>
  app.inject({ method: 'DELETE', url: `/api/v1/apps/${appId}/subscribers/${subscriberId}`, headers: bearer(token) });

/** Inserts `count` subscriptions; every third is expired; pairs share a `created_at` to test the id tie-break. */
async function seedSubscriptions(appId: string, count: number) {
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth, status, created_at)
    select ${appId}, 'https://fcm.googleapis.com/fcm/send/seed-' || ${appId}::text || '-' || i, 'p', 'a',
      case when i % 3 = 0 then 'expired' else 'active' end,
      timestamptz '2026-03-01T00:00:00Z' + (i / 2) * interval '1 millisecond'
    from generate_series(1, ${count}) as i`;
}
const idsInOrder = async (appId: string, status: string | null) =>
  (
    await sql`select id from subscriptions where app_id = ${appId}
      and (${status}::text is null or status = ${status}) order by created_at desc, id desc`
  ).map((row) => row.id as string);

async function walk(token: string, appId: string, params: Record<string, string>) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const query = new URLSearchParams(params);
    if (cursor !== null) query.set('cursor', cursor);
    const response = await list(token, appId, `?${query}`);
    if (response.statusCode !== 200) throw new Error(`list failed: ${response.body}`);
    const body = response.json() as ListBody;
    ids.push(...body.subscribers.map((subscriber) => subscriber.id));
    sizes.push(body.subscribers.length);
    cursor = body.nextCursor;
    if (cursor === null) break;
  }
  return { ids, sizes };
}

const owner = await ownerWithKey(app, 'notify');
const stranger = await ownerWithKey(app, 'notify');

t.test('GET lists the app’s subscribers newest first in the pinned shape', async (t) => {
  const lister = await ownerWithKey(app, 'notify');
  const older = await subscribe(app, lister.secret);
  const newer = await subscribe(app, lister.secret);
  await sql`update subscriptions set created_at = now() - interval '1 minute' where id = ${older.id}`;
  await sql`update subscriptions set status = 'expired', expired_at = now() where id = ${older.id}`;
  await subscribe(app, stranger.secret);

  const response = await list(lister.user.token, lister.app.id);
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/);
  const body = response.json() as ListBody;
  t.equal(body.nextCursor, null);
  const [first, second] = body.subscribers;
  t.equal(body.subscribers.length, 2, 'only this app’s subscribers');
  t.strictSame(first, {
    id: newer.id,
    endpoint: newer.endpoint,
    status: 'active',
    uid: null,
    tags: {},
    language: null,
    timeZone: null,
    vapidPublicKey: lister.app.vapidPublicKey,
    createdAt: first?.createdAt,
  });
  t.strictSame(second, {
    id: older.id,
    endpoint: older.endpoint,
    status: 'expired',
    uid: null,
    tags: {},
    language: null,
    timeZone: null,
    vapidPublicKey: lister.app.vapidPublicKey,
    createdAt: second?.createdAt,
  });
  t.ok(Date.parse(first?.createdAt ?? '') > Date.parse(second?.createdAt ?? ''), 'newest first');

  const active = (await list(lister.user.token, lister.app.id, '?status=active')).json() as ListBody;
  t.strictSame(
    active.subscribers.map((subscriber) => subscriber.id),
    [newer.id],
  );
  const expired = (await list(lister.user.token, lister.app.id, '?status=expired')).json() as ListBody;
  t.strictSame(
    expired.subscribers.map((subscriber) => subscriber.id),
    [older.id],
  );
});

t.test('keyset pagination walks every subscriber once, with and without a status filter', async (t) => {
  const paged = await ownerWithKey(app, 'notify');
  await seedSubscriptions(paged.app.id, 61);
  const all = await idsInOrder(paged.app.id, null);
  const active = await idsInOrder(paged.app.id, 'active');
  const expired = await idsInOrder(paged.app.id, 'expired');
  t.equal(all.length, 61);
  t.equal(expired.length, 20);

  const byDefault = await walk(paged.user.token, paged.app.id, {});
  t.strictSame(byDefault.sizes, [20, 20, 20, 1], 'default page size 20');
  t.strictSame(byDefault.ids, all, 'no duplicates, no gaps');

  const small = await walk(paged.user.token, paged.app.id, { limit: '8' });
  t.strictSame(small.sizes, [8, 8, 8, 8, 8, 8, 8, 5]);
  t.strictSame(small.ids, all);

  const activePages = await walk(paged.user.token, paged.app.id, { status: 'active', limit: '10' });
  t.strictSame(activePages.sizes, [10, 10, 10, 10, 1]);
  t.strictSame(activePages.ids, active);

  const expiredPages = await walk(paged.user.token, paged.app.id, { status: 'expired', limit: '20' });
  t.strictSame(expiredPages.sizes, [20], 'a page ending exactly at the last row has no next cursor');
  t.strictSame(expiredPages.ids, expired);

  const single = await walk(paged.user.token, paged.app.id, { limit: '1' });
  t.strictSame(single.ids, all, 'rows sharing a created_at are ordered by id, none skipped');
});

t.test('a bad status, limit or cursor is 400 INVALID_INPUT', async (t) => {
  for (const query of [
    '?status=unknown',
    '?status=',
    '?status=ACTIVE',
    '?status=active&status=expired',
    '?limit=0',
    '?limit=101',
    '?limit=abc',
    '?limit=2.0',
    '?cursor=%%%',
    '?cursor=bm9wZQ',
    `?cursor=${Buffer.from('2026-01-01T00:00:00.000000Z|xyz').toString('base64url')}`,
  ]) {
    t.test(query, async (t) => assertError(t, await list(owner.user.token, owner.app.id, query), 'INVALID_INPUT'));
  }
  t.equal((await list(owner.user.token, owner.app.id, '?limit=100&status=expired')).statusCode, 200);
});

t.test('DELETE removes the subscriber: 204, gone from the list, no longer a target', async (t) => {
  const sender = await ownerWithKey(app, 'notify');
  const [kept, removed] = [await subscribe(app, sender.secret), await subscribe(app, sender.secret)];
  if (!kept || !removed) throw new Error('subscriptions were not made');
  const send = () =>
    app.inject({
      method: 'POST',
      url: `/api/v1/apps/${sender.app.id}/notifications`,
      headers: bearer(sender.user.token),
      payload: { title: 'T', body: 'B' },
    });
  t.equal((await send()).json<{ notification: { targets: number } }>().notification.targets, 2, 'two targets before');

  const response = await remove(sender.user.token, sender.app.id, removed.id);
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  t.equal((await sql`select id from subscriptions where id = ${removed.id}`).length, 0, 'the row is gone');

  t.equal((await send()).json<{ notification: { targets: number } }>().notification.targets, 1, 'one target after');
  const endpointSend = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(sender.secret),
    payload: { title: 'T', body: 'B', endpoint: removed.endpoint },
  });
  assertError(t, endpointSend, 'NOT_FOUND');
  const listed = (await list(sender.user.token, sender.app.id)).json() as ListBody;
  t.strictSame(
    listed.subscribers.map((subscriber) => subscriber.id),
    [kept.id],
  );

  assertError(t, await remove(sender.user.token, sender.app.id, removed.id), 'NOT_FOUND');
});

t.test('another user’s app or subscriber, an unknown id and malformed ids are 404', async (t) => {
  const theirs = await subscribe(app, stranger.secret);
  const mine = await subscribe(app, owner.secret);
  const unknown = '00000000-0000-4000-8000-000000000000';

  assertError(t, await list(owner.user.token, stranger.app.id), 'NOT_FOUND');
  assertError(t, await list(owner.user.token, unknown), 'NOT_FOUND');
  assertError(t, await list(owner.user.token, 'not-a-uuid'), 'NOT_FOUND');

  assertError(t, await remove(owner.user.token, stranger.app.id, theirs.id), 'NOT_FOUND');
  assertError(t, await remove(owner.user.token, owner.app.id, theirs.id), 'NOT_FOUND');
  assertError(t, await remove(owner.user.token, owner.app.id, unknown), 'NOT_FOUND');
  assertError(t, await remove(owner.user.token, owner.app.id, 'not-a-uuid'), 'NOT_FOUND');
  assertError(t, await remove(owner.user.token, 'not-a-uuid', mine.id), 'NOT_FOUND');
  assertError(t, await remove(stranger.user.token, owner.app.id, mine.id), 'NOT_FOUND');
  const [row] = await sql`select count(*)::int as n from subscriptions where id in ${sql([theirs.id, mine.id])}`;
  t.equal(row?.n, 2, 'nothing was deleted');
});

t.test('a session is required', async (t) => {
  const url = `/api/v1/apps/${owner.app.id}/subscribers`;
  assertError(t, await app.inject({ method: 'GET', url }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'GET', url, headers: bearer(owner.secret) }), 'INVALID_SESSION');
  assertError(
    t,
    await app.inject({ method: 'DELETE', url: `${url}/00000000-0000-4000-8000-000000000000` }),
    'UNAUTHORIZED',
  );
  t.equal((await app.inject({ method: 'GET', url, cookies: { wp_session: owner.user.token } })).statusCode, 200);
});
