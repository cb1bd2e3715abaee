import { testCoordination, waitFor, waitForValue } from '@webpush/testing';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey } from '../helper.js';

// The two guards on a public subscribe_only key: the app's allowedOrigins, and the per-app cap on new
// subscriptions per window (set low here: 5 per hour, the most one app of the origin tests subscribes,
// in a long window so it rolls over mid-test only at the turn of an hour), both on top of the per-IP
// limit (out of the way).
const CAP = 5;
const WINDOW_SECONDS = 3600;
const mode = testCoordination();
const limits = { RATE_LIMIT_API_KEY_MAX: '10000', RATE_LIMIT_REGISTER_MAX: '1000' };
const ctx = await buildTestApp(t, {
  ...limits,
  RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: String(CAP),
  RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
});
const { app } = ctx;
const sql = ctx.database.sql;
const SITE = 'https://www.customer.example';

type Headers = Record<string, string>;
const subscribeOn = (
  api: FastifyInstance,
  secret: string,
  headers: Headers = {},
  payload: object = fakeSubscription(),
) => api.inject({ method: 'POST', url: '/api/v1/subscribe', headers: { ...bearer(secret), ...headers }, payload });
const subscribe = (secret: string, headers: Headers = {}, payload: object = fakeSubscription()) =>
  subscribeOn(app, secret, headers, payload);
const unsubscribe = (secret: string, endpoint: string, headers: Headers = {}) =>
  app.inject({
    method: 'DELETE',
    url: '/api/v1/subscribe',
    headers: { ...bearer(secret), ...headers },
    payload: { endpoint },
  });
const vapidKey = (secret: string, headers: Headers = {}) =>
  app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: { ...bearer(secret), ...headers } });

async function restrict(token: string, appId: string, allowedOrigins: string[]) {
  const response = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${appId}`,
    headers: bearer(token),
    payload: { allowedOrigins },
  });
  if (response.statusCode !== 200) throw new Error(`PATCH: ${response.statusCode} ${response.body}`);
}

/** The app's cap counter in the window that holds `at`, named as plugins/app/new-subscription-cap.ts names it. */
const capKey = (api: FastifyInstance, appId: string, windowMs: number, at = Date.now()) =>
  `${api.config.redisKeyPrefix}:new-subscriptions:${appId}:${Math.floor(at / windowMs)}`;

const countFor = async (appId: string) =>
  (await sql<{ n: number }[]>`select count(*)::int as n from subscriptions where app_id = ${appId}`)[0]?.n;

t.test('allowedOrigins: a subscribe_only key works only from the listed origins', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const kept = fakeSubscription();
  t.equal(
    (await subscribe(owner.secret, { origin: 'https://anywhere.example' }, kept)).statusCode,
    201,
    'open by default',
  );
  await restrict(owner.user.token, owner.app.id, [SITE, 'http://localhost:8080']);

  const fromSite = await subscribe(owner.secret, { origin: SITE });
  t.equal(fromSite.statusCode, 201, 'the listed origin subscribes');
  t.equal((await subscribe(owner.secret, { origin: 'HTTPS://WWW.CUSTOMER.EXAMPLE' })).statusCode, 201, 'any case');
  t.equal((await subscribe(owner.secret, { origin: 'http://localhost:8080' })).statusCode, 201);
  t.equal((await vapidKey(owner.secret, { origin: SITE })).statusCode, 200);

  const before = await countFor(owner.app.id);
  for (const origin of [
    'https://evil.example',
    'https://www.customer.example:8443',
    'http://www.customer.example',
    'null',
  ]) {
    assertError(t, await subscribe(owner.secret, { origin }), 'ORIGIN_NOT_ALLOWED');
    assertError(t, await vapidKey(owner.secret, { origin }), 'ORIGIN_NOT_ALLOWED');
    assertError(t, await unsubscribe(owner.secret, kept.endpoint, { origin }), 'ORIGIN_NOT_ALLOWED');
  }
  assertError(t, await subscribe(owner.secret), 'ORIGIN_NOT_ALLOWED');
  assertError(t, await vapidKey(owner.secret), 'ORIGIN_NOT_ALLOWED');
  assertError(t, await unsubscribe(owner.secret, kept.endpoint), 'ORIGIN_NOT_ALLOWED');
  t.equal(await countFor(owner.app.id), before, 'nothing stored or removed');

  t.equal((await unsubscribe(owner.secret, kept.endpoint, { origin: SITE })).statusCode, 204);

  await restrict(owner.user.token, owner.app.id, []);
  t.equal((await subscribe(owner.secret)).statusCode, 201, '[] opens the key again, even without Origin');
});

t.test('allowedOrigins binds only subscribe_only keys, and only its own app', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await restrict(owner.user.token, owner.app.id, [SITE]);
  const notifyKey = await createKey(app, owner.user.token, owner.app.id, 'notify');
  const fullKey = await createKey(app, owner.user.token, owner.app.id, 'full');
  t.equal((await subscribe(notifyKey.secret)).statusCode, 201, 'a notify key is a server secret: no Origin needed');
  t.equal((await subscribe(fullKey.secret, { origin: 'https://elsewhere.example' })).statusCode, 201);
  assertError(t, await subscribe(owner.secret, { origin: 'https://elsewhere.example' }), 'ORIGIN_NOT_ALLOWED');

  const other = await ownerWithKey(app, 'subscribe_only');
  t.equal(
    (await subscribe(other.secret, { origin: 'https://elsewhere.example' })).statusCode,
    201,
    'other apps unaffected',
  );
});

t.test('the order of auth errors: a bad key is 401 before any Origin check; wrong scope before origin', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await restrict(owner.user.token, owner.app.id, [SITE]);
  assertError(t, await subscribe('wpk_not-a-key', { origin: 'https://evil.example' }), 'INVALID_API_KEY');
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: { origin: 'https://evil.example' },
      payload: {},
    }),
    'UNAUTHORIZED',
  );
  const notify = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: { ...bearer(owner.secret), origin: 'https://evil.example' },
    payload: { title: 't', body: 'b' },
  });
  assertError(t, notify, 'INSUFFICIENT_SCOPE');
  // A refused origin learns nothing about the body: no validation error first.
  assertError(t, await subscribe(owner.secret, { origin: 'https://evil.example' }, {}), 'ORIGIN_NOT_ALLOWED');
});

t.test('CORS preflights still answer for a restricted app (they carry no key)', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await restrict(owner.user.token, owner.app.id, [SITE]);
  const response = await app.inject({
    method: 'OPTIONS',
    url: '/api/v1/subscribe',
    headers: {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
    },
  });
  t.equal(response.statusCode, 204);
  t.ok(response.headers['access-control-allow-origin']);
  const refused = await subscribe(owner.secret, { origin: 'https://evil.example' });
  assertError(t, refused, 'ORIGIN_NOT_ALLOWED');
  t.ok(refused.headers['access-control-allow-origin'], 'the refusal is readable by the page, so the SDK can say why');
});

t.test('per-app cap: new subscriptions past the cap in a window are 429 RATE_LIMITED with Retry-After', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const other = await ownerWithKey(app, 'subscribe_only');
  const first = fakeSubscription();
  const statuses = [];
  statuses.push((await subscribe(owner.secret, {}, first)).statusCode);
  for (let i = 1; i < CAP; i++) statuses.push((await subscribe(owner.secret)).statusCode);
  t.strictSame(statuses, Array(CAP).fill(201), `the first ${CAP} new ones pass`);

  const refused = await subscribe(owner.secret, { 'x-forwarded-for': '203.0.113.9' }, fakeSubscription());
  assertError(t, refused, 'RATE_LIMITED');
  const retryAfter = Number(refused.headers['retry-after']);
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After: ${retryAfter}`);
  const fromElsewhere = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    remoteAddress: '198.51.100.23',
    payload: fakeSubscription(),
  });
  assertError(t, fromElsewhere, 'RATE_LIMITED');
  t.equal(await countFor(owner.app.id), CAP, 'nothing past the cap was stored, from any address');

  const again = await subscribe(owner.secret, {}, { ...fakeSubscription(), endpoint: first.endpoint });
  t.equal(again.statusCode, 200, 'a stored endpoint renewing its keys is not new: not capped');
  t.equal((await unsubscribe(owner.secret, first.endpoint)).statusCode, 204, 'unsubscribing is not capped');
  t.equal((await subscribe(other.secret)).statusCode, 201, "another app's cap is its own");

  const counter = await app.coordination.read(capKey(app, owner.app.id, WINDOW_SECONDS * 1000));
  t.equal(counter.count, CAP + 2, 'the window counted every new one, the refused ones too');
  t.ok(counter.ttlMs > 0 && counter.ttlMs <= 2 * WINDOW_SECONDS * 1000, `it expires by itself (${counter.ttlMs} ms)`);

  if (mode === 'redis') {
    // Every API instance counts in one Redis: the counter is a key under the service's prefix.
    const keys = await app.redis.keys(`${ctx.config.redisKeyPrefix}:new-subscriptions:${owner.app.id}:*`);
    t.equal(keys.length, 1, 'one counter for the app in this window');
    t.ok((await app.redis.pttl(keys[0] ?? '')) > 0, 'it expires by itself');
    await app.redis.del(...keys);
    t.equal((await subscribe(owner.secret)).statusCode, 201, 'a new window admits again');
  }
});

t.test('per-app cap: subscribes arriving together are looked up together, and only new ones count', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const known = [fakeSubscription(), fakeSubscription()];
  for (const subscription of known) t.equal((await subscribe(owner.secret, {}, subscription)).statusCode, 201);
  // Two re-subscribes and eight new endpoints at once: the re-subscribes take nothing from the cap,
  // so exactly CAP - 2 of the new ones are stored, whatever the order the batch took them in.
  const fresh = Array.from({ length: 8 }, () => fakeSubscription());
  const answers = await Promise.all([
    ...known.map((subscription) =>
      subscribe(owner.secret, {}, { ...fakeSubscription(), endpoint: subscription.endpoint }),
    ),
    ...fresh.map((subscription) => subscribe(owner.secret, {}, subscription)),
  ]);
  t.strictSame(
    answers.slice(0, 2).map((answer) => answer.statusCode),
    [200, 200],
    'the known endpoints are renewed',
  );
  const statuses = answers.slice(2).map((answer) => answer.statusCode);
  t.equal(statuses.filter((status) => status === 201).length, CAP - 2, `${CAP - 2} new ones stored`);
  t.equal(statuses.filter((status) => status === 429).length, 8 - (CAP - 2), 'the rest refused');
  for (const answer of answers.slice(2).filter((reply) => reply.statusCode === 429))
    assertError(t, answer, 'RATE_LIMITED');
  t.equal(await countFor(owner.app.id), CAP, 'nothing past the cap was stored');
  const counter = await app.coordination.read(capKey(app, owner.app.id, WINDOW_SECONDS * 1000));
  t.equal(counter.count, 2 + 8, 'the window counted each new endpoint once, and no re-subscribe');
});

t.test('per-app cap: the next window admits again, and the spent counter expires by itself', async (t) => {
  // A window of one second, so the test sees it end; a cap of one.
  const windowMs = 1000;
  const short = await buildTestApp(t, {
    ...limits,
    RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: '1',
    RATE_LIMIT_WINDOW_SECONDS: String(windowMs / 1000),
  });
  const owner = await ownerWithKey(short.app, 'subscribe_only');
  // Subscribes until one is refused within the window it started in: the window may turn between two.
  const refusal = await waitForValue(
    async () => {
      const startedAt = Date.now();
      const response = await subscribeOn(short.app, owner.secret);
      const window = capKey(short.app, owner.app.id, windowMs, startedAt);
      return { response, window: window === capKey(short.app, owner.app.id, windowMs) ? window : null };
    },
    ({ response, window }) => response.statusCode !== 201 && window !== null,
    'a new subscription refused within one window',
  );
  assertError(t, refusal.response, 'RATE_LIMITED');
  t.equal(refusal.response.headers['retry-after'], '1');
  const spent = refusal.window ?? '';
  const counter = await short.app.coordination.read(spent);
  t.ok(counter.count >= 2 && counter.ttlMs > 0 && counter.ttlMs <= 2 * windowMs, JSON.stringify(counter));

  await waitFor(
    async () => (await subscribeOn(short.app, owner.secret)).statusCode === 201,
    'a new subscription admitted in a later window',
  );
  await waitForValue(
    () => short.app.coordination.read(spent),
    ({ count, ttlMs }) => count === 0 && ttlMs === -2,
    "the spent window's counter gone by itself",
  );
});
