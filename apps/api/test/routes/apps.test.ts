import { createPublicKey } from 'node:crypto';
import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createApp, createKey, fakeSubscription, ownerWithKey, registerUser } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_API_KEY_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

interface PublicApp {
  id: string;
  name: string;
  vapidPublicKey: string;
  role: string;
  createdAt: string;
  allowedOrigins: string[];
}

const postApp = (token: string, payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/apps', headers: bearer(token), payload: payload as object });

const insertSubscriptions = async (appId: string, count: number, status: 'active' | 'expired') => {
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth, status, expired_at)
    select ${appId}, 'https://fcm.googleapis.com/fcm/send/' || ${status} || '-' || g, 'p256dh', 'auth', ${status},
           case when ${status} = 'expired' then now() end
    from generate_series(1, ${count}::int) g`;
};

t.test('POST /apps answers 201 with the app and its VAPID public key', async (t) => {
  const user = await registerUser(app);
  const before = Date.now();
  const response = await postApp(user.token, { name: 'My blog' });
  t.equal(response.statusCode, 201);
  const body = response.json() as { app: PublicApp };
  t.strictSame(Object.keys(body), ['app']);
  t.strictSame(Object.keys(body.app).sort(), [
    'allowedOrigins',
    'createdAt',
    'defaultUrl',
    'frequencyCap',
    'id',
    'name',
    'pushFormat',
    'requireSignedTags',
    'role',
    'signaturesExpire',
    'timeZone',
    'vapidPublicKey',
  ]);
  t.match(body.app, { pushFormat: 'legacy', defaultUrl: null }, 'new apps are legacy');
  t.equal(body.app.role, 'owner', 'the caller’s role on the app');
  t.strictSame(body.app.allowedOrigins, [], 'no origin restriction by default');
  t.match(body.app.id, UUID);
  t.equal(body.app.name, 'My blog');
  const created = Date.parse(body.app.createdAt);
  t.ok(created >= before - 1000 && created <= Date.now() + 1000, 'createdAt is now, as ISO 8601');
  t.equal(new Date(created).toISOString(), body.app.createdAt);

  // A browser's applicationServerKey: the uncompressed P-256 point, base64url without padding.
  t.match(body.app.vapidPublicKey, /^[A-Za-z0-9_-]{87}$/);
  const point = Buffer.from(body.app.vapidPublicKey, 'base64url');
  t.equal(point.length, 65);
  t.equal(point[0], 0x04, 'uncompressed');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  t.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1', 'a point on P-256');

  const [row] =
    await sql`select user_id, name, vapid_public_key, vapid_private_key_sealed from apps where id = ${body.app.id}`;
  t.equal(row?.user_id, user.user.id);
  t.equal(row?.name, 'My blog');
  t.equal(row?.vapid_public_key, body.app.vapidPublicKey);
  t.match(row?.vapid_private_key_sealed, /^v2\./, 'the private key is stored sealed, bound to the app');
  t.notOk(JSON.stringify(body).includes(String(row?.vapid_private_key_sealed)), 'and never returned');

  const other = await registerUser(app);
  const second = await createApp(app, other.token);
  t.not(second.vapidPublicKey, body.app.vapidPublicKey, 'each app has its own key pair');
});

t.test('POST /apps validates its body', async (t) => {
  const user = await registerUser(app);
  assertError(t, await postApp(user.token, {}), 'MISSING_FIELDS');
  assertError(t, await postApp(user.token, { name: '' }), 'MISSING_FIELDS');
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/api/v1/apps', headers: bearer(user.token) }),
    'MISSING_FIELDS',
  );
  assertError(t, await postApp(user.token, { name: 123 }), 'INVALID_INPUT');
  assertError(t, await postApp(user.token, { name: 'x'.repeat(201) }), 'INVALID_INPUT');
  const [row] = await sql`select count(*)::int as n from apps where user_id = ${user.user.id}`;
  t.equal(row?.n, 0, 'nothing was created');
});

t.test('GET /apps lists only the caller’s apps', async (t) => {
  const user = await registerUser(app);
  const empty = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  t.equal(empty.statusCode, 200);
  t.strictSame(empty.json(), { apps: [] });

  const created = await createApp(app, user.token, 'Listed');
  const other = await registerUser(app);
  await createApp(app, other.token, 'Not mine');
  const response = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { apps: [{ ...created, stats: { activeSubscribers: 0, sendsThisMonth: 0 } }] });
});

t.test('GET /apps/:appId returns the app with its subscriber counts', async (t) => {
  const user = await registerUser(app);
  const created = await createApp(app, user.token);
  const get = () => app.inject({ method: 'GET', url: `/api/v1/apps/${created.id}`, headers: bearer(user.token) });

  const fresh = await get();
  t.equal(fresh.statusCode, 200);
  t.strictSame(fresh.json(), {
    app: { ...created, stats: { activeSubscribers: 0, expiredSubscribers: 0, sendsThisMonth: 0 } },
  });

  await insertSubscriptions(created.id, 3, 'active');
  await insertSubscriptions(created.id, 2, 'expired');
  // One more through the API, then expired by SQL the way the worker would on a 410.
  const key = await createKey(app, user.token, created.id, 'subscribe_only');
  const subscription = fakeSubscription();
  const subscribed = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(key.secret),
    payload: subscription,
  });
  t.equal(subscribed.statusCode, 201);
  t.equal((await get()).json<{ app: { stats: { activeSubscribers: number } } }>().app.stats.activeSubscribers, 4);
  await sql`update subscriptions set status = 'expired', expired_at = now() where endpoint = ${subscription.endpoint}`;

  // Another app's subscribers do not count.
  const other = await registerUser(app);
  await insertSubscriptions((await createApp(app, other.token)).id, 5, 'active');

  const response = await get();
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), {
    app: { ...created, stats: { activeSubscribers: 3, expiredSubscribers: 3, sendsThisMonth: 0 } },
  });

  // The list carries the two numbers of each app's card; a send of this month counts its targets.
  const notifyKey = await createKey(app, user.token, created.id, 'notify');
  const sent = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(notifyKey.secret),
    payload: { title: 'Counted', body: 'b' },
  });
  t.equal(sent.statusCode, 202);
  const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  t.strictSame(
    list.json<{ apps: { id: string; stats: unknown }[] }>().apps.map(({ id, stats }) => ({ id, stats })),
    [{ id: created.id, stats: { activeSubscribers: 3, sendsThisMonth: 3 } }],
    'only this account’s app, with its own numbers',
  );
});

t.test('DELETE /apps/:appId answers 204 and takes its keys and subscriptions with it', async (t) => {
  const owner = await ownerWithKey(app, 'full');
  await createKey(app, owner.user.token, owner.app.id, 'subscribe_only');
  const subscribed = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: fakeSubscription(),
  });
  t.equal(subscribed.statusCode, 201);
  await insertSubscriptions(owner.app.id, 2, 'expired');
  const queued = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'Queued', body: 'when the app goes' },
  });
  t.equal(queued.statusCode, 202);
  // A neighbour's app must survive.
  const neighbour = await ownerWithKey(app, 'full');
  await insertSubscriptions(neighbour.app.id, 2, 'active');

  const count = async (table: 'api_keys' | 'subscriptions', appId: string) =>
    (await sql`select count(*)::int as n from ${sql(table)} where app_id = ${appId}`)[0]?.n as number;
  t.equal(await count('api_keys', owner.app.id), 2);
  t.equal(await count('subscriptions', owner.app.id), 3);

  const response = await app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');

  t.equal((await sql`select count(*)::int as n from apps where id = ${owner.app.id}`)[0]?.n, 0, 'app row gone');
  t.equal(await count('api_keys', owner.app.id), 0, 'keys gone');
  t.equal(await count('subscriptions', owner.app.id), 0, 'subscriptions gone');
  t.equal(
    (await sql`select count(*)::int as n from notifications where app_id = ${owner.app.id}`)[0]?.n,
    0,
    'queued sends gone: the worker finds nothing to deliver',
  );
  t.equal(await count('api_keys', neighbour.app.id), 1, "the neighbour's key stays");
  t.equal(await count('subscriptions', neighbour.app.id), 2, "the neighbour's subscriptions stay");

  const get = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  assertError(t, get, 'NOT_FOUND');
  const again = await app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  assertError(t, again, 'NOT_FOUND');
  const keyNow = await app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(owner.secret) });
  assertError(t, keyNow, 'INVALID_API_KEY');

  // The Free plan's one app slot is free again.
  t.equal((await postApp(owner.user.token, { name: 'Again' })).statusCode, 201);
});

t.test('a second app on the Free plan is 403 PLAN_LIMIT_EXCEEDED with upgrade_url', async (t) => {
  const user = await registerUser(app);
  await createApp(app, user.token, 'First');
  const response = await postApp(user.token, { name: 'Second' });
  assertError(t, response, 'PLAN_LIMIT_EXCEEDED');
  t.equal(response.json<{ upgrade_url?: string }>().upgrade_url, 'http://localhost:3000/pricing');
  const [row] = await sql`select count(*)::int as n from apps where user_id = ${user.user.id}`;
  t.equal(row?.n, 1);
});

t.test('simultaneous creations cannot take the Free plan past one app', async (t) => {
  const user = await registerUser(app);
  const responses = await Promise.all([1, 2, 3, 4].map((n) => postApp(user.token, { name: `Race ${n}` })));
  const statuses = responses.map((response) => response.statusCode).sort();
  t.strictSame(statuses, [201, 403, 403, 403]);
  for (const response of responses.filter((r) => r.statusCode === 403)) assertError(t, response, 'PLAN_LIMIT_EXCEEDED');
  const [row] = await sql`select count(*)::int as n from apps where user_id = ${user.user.id}`;
  t.equal(row?.n, 1);
});

t.test('a Pro user can create a second app', async (t) => {
  const user = await registerUser(app);
  const first = await createApp(app, user.token, 'First');
  await sql`update users set plan = 'pro' where id = ${user.user.id}`;
  const response = await postApp(user.token, { name: 'Second' });
  t.equal(response.statusCode, 201);
  const second = (response.json() as { app: PublicApp }).app;
  const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  const noCounts = { stats: { activeSubscribers: 0, sendsThisMonth: 0 } };
  t.strictSame(list.json(), {
    apps: [
      { ...first, ...noCounts },
      { ...second, ...noCounts },
    ],
  });
  const me = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(user.token) });
  t.equal(me.json<{ user: { plan: string } }>().user.plan, 'pro');
});

t.test("another user's app is 404 NOT_FOUND, everywhere", async (t) => {
  const owner = await ownerWithKey(app, 'full');
  const intruder = await registerUser(app);
  const asIntruder = bearer(intruder.token);
  const appUrl = `/api/v1/apps/${owner.app.id}`;

  assertError(t, await app.inject({ method: 'GET', url: appUrl, headers: asIntruder }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'DELETE', url: appUrl, headers: asIntruder }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'GET', url: `${appUrl}/keys`, headers: asIntruder }), 'NOT_FOUND');
  const create = await app.inject({
    method: 'POST',
    url: `${appUrl}/keys`,
    headers: asIntruder,
    payload: { scope: 'full' },
  });
  assertError(t, create, 'NOT_FOUND');
  const revoke = await app.inject({
    method: 'DELETE',
    url: `${appUrl}/keys/${owner.key.key.id}`,
    headers: asIntruder,
  });
  assertError(t, revoke, 'NOT_FOUND');

  // The intruder's own app does not open the owner's key either.
  const intruderApp = await createApp(app, intruder.token);
  const crossRevoke = await app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${intruderApp.id}/keys/${owner.key.key.id}`,
    headers: asIntruder,
  });
  assertError(t, crossRevoke, 'NOT_FOUND');

  t.equal((await sql`select count(*)::int as n from apps where id = ${owner.app.id}`)[0]?.n, 1, 'the app is intact');
  t.equal(
    (await sql`select count(*)::int as n from api_keys where app_id = ${owner.app.id}`)[0]?.n,
    1,
    'one key, still',
  );
  const stillWorks = await app.inject({
    method: 'GET',
    url: '/api/v1/vapid-public-key',
    headers: bearer(owner.secret),
  });
  t.equal(stillWorks.statusCode, 200, "the owner's key still works");
  const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: asIntruder });
  t.strictSame(list.json(), { apps: [{ ...intruderApp, stats: { activeSubscribers: 0, sendsThisMonth: 0 } }] });
});

t.test('an app id that is not a uuid, or no app, is 404 NOT_FOUND', async (t) => {
  const user = await registerUser(app);
  const headers = bearer(user.token);
  for (const id of ['not-a-uuid', '123', "1' or '1'='1", '00000000-0000-0000-0000-000000000000']) {
    const url = `/api/v1/apps/${encodeURIComponent(id)}`;
    assertError(t, await app.inject({ method: 'GET', url, headers }), 'NOT_FOUND');
    assertError(t, await app.inject({ method: 'DELETE', url, headers }), 'NOT_FOUND');
    assertError(t, await app.inject({ method: 'GET', url: `${url}/keys`, headers }), 'NOT_FOUND');
    const create = await app.inject({ method: 'POST', url: `${url}/keys`, headers, payload: { scope: 'notify' } });
    assertError(t, create, 'NOT_FOUND');
  }
});

t.test('app routes take a session, never an API key', async (t) => {
  const owner = await ownerWithKey(app, 'full');
  const asKey = bearer(owner.secret);
  assertError(t, await app.inject({ method: 'GET', url: '/api/v1/apps', headers: asKey }), 'INVALID_SESSION');
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/api/v1/apps', headers: asKey, payload: { name: 'x' } }),
    'INVALID_SESSION',
  );
  const appUrl = `/api/v1/apps/${owner.app.id}`;
  assertError(t, await app.inject({ method: 'GET', url: appUrl, headers: asKey }), 'INVALID_SESSION');
  assertError(t, await app.inject({ method: 'DELETE', url: appUrl, headers: asKey }), 'INVALID_SESSION');
  assertError(t, await app.inject({ method: 'GET', url: `${appUrl}/keys`, headers: asKey }), 'INVALID_SESSION');
  const createKeyWithKey = await app.inject({
    method: 'POST',
    url: `${appUrl}/keys`,
    headers: asKey,
    payload: { scope: 'full' },
  });
  assertError(t, createKeyWithKey, 'INVALID_SESSION');
  t.equal((await sql`select count(*)::int as n from apps where id = ${owner.app.id}`)[0]?.n, 1, 'nothing deleted');

  assertError(t, await app.inject({ method: 'GET', url: '/api/v1/apps' }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'POST', url: '/api/v1/apps', payload: { name: 'x' } }), 'UNAUTHORIZED');
  const viaCookie = await app.inject({ method: 'GET', url: '/api/v1/apps', cookies: { wp_session: owner.user.token } });
  t.equal(viaCookie.statusCode, 200, 'the session cookie works as well');
});

t.test(
  'a name of only white space is missing: 400 MISSING_FIELDS, nothing created; names are stored trimmed',
  async (t) => {
    const owner = await registerUser(app);
    for (const name of [' ', '   ', '\t\n', '\u3000']) {
      assertError(t, await postApp(owner.token, { name }), 'MISSING_FIELDS');
    }
    t.equal((await sql`select count(*)::int as n from apps where user_id = ${owner.user.id}`)[0]?.n, 0, 'no app');
    const created = await postApp(owner.token, { name: '  My site  ' });
    t.equal(created.statusCode, 201);
    t.equal((created.json() as { app: { name: string } }).app.name, 'My site');
  },
);
