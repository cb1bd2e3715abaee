import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '10000' });
const { app } = ctx;
const sql = ctx.database.sql;

// Owner A's app with a browser key; owner B's app for the tenant checks.
const ownerA = await ownerWithKey(app, 'subscribe_only');
const ownerB = await ownerWithKey(app, 'subscribe_only');

const subscribe = (payload: unknown, secret = ownerA.secret) =>
  app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload: payload as object });
const unsubscribe = (payload: unknown, secret = ownerA.secret) =>
  app.inject({ method: 'DELETE', url: '/api/v1/subscribe', headers: bearer(secret), payload: payload as object });
interface SubscribeBody {
  subscriber: { id: string };
}

const rowsFor = (endpoint: string) =>
  sql`select id, app_id, p256dh, auth, status, expired_at from subscriptions where endpoint = ${endpoint} order by created_at`;

t.test('POST /subscribe with the flat body answers 201 {subscriber:{id}} and stores it', async (t) => {
  const subscription = fakeSubscription();
  const response = await subscribe(subscription);
  t.equal(response.statusCode, 201);
  const body = response.json<SubscribeBody>();
  t.strictSame(body, { subscriber: { id: body.subscriber.id } });
  t.match(body.subscriber.id, UUID);
  const rows = await rowsFor(subscription.endpoint);
  t.equal(rows.length, 1);
  t.strictSame(
    { ...rows[0] },
    {
      id: body.subscriber.id,
      app_id: ownerA.app.id,
      p256dh: subscription.p256dh,
      auth: subscription.auth,
      status: 'active',
      expired_at: null,
    },
  );
});

t.test("POST /subscribe accepts the browser's PushSubscription.toJSON() shape", async (t) => {
  const { endpoint, p256dh, auth } = fakeSubscription();
  const response = await subscribe({ endpoint, expirationTime: null, keys: { p256dh, auth } });
  t.equal(response.statusCode, 201);
  const [row] = await rowsFor(endpoint);
  t.equal(row?.id, response.json<SubscribeBody>().subscriber.id);
  t.equal(row?.p256dh, p256dh);
  t.equal(row?.auth, auth);
});

t.test('subscribing a stored endpoint again answers 200 with the same id and updates its keys', async (t) => {
  const first = fakeSubscription();
  const created = await subscribe(first);
  t.equal(created.statusCode, 201);
  const renewed = { ...fakeSubscription(), endpoint: first.endpoint };
  const again = await subscribe({ endpoint: renewed.endpoint, keys: { p256dh: renewed.p256dh, auth: renewed.auth } });
  t.equal(again.statusCode, 200);
  t.strictSame(again.json(), created.json(), 'same subscriber id');
  const rows = await rowsFor(first.endpoint);
  t.equal(rows.length, 1, 'still one row');
  t.equal(rows[0]?.p256dh, renewed.p256dh, 'p256dh updated');
  t.equal(rows[0]?.auth, renewed.auth, 'auth updated');
});

t.test('an expired subscription that subscribes again is active again (200)', async (t) => {
  const subscription = fakeSubscription();
  const created = await subscribe(subscription);
  await sql`update subscriptions set status = 'expired', expired_at = now() where endpoint = ${subscription.endpoint}`;
  const again = await subscribe(subscription);
  t.equal(again.statusCode, 200);
  t.strictSame(again.json(), created.json());
  const [row] = await rowsFor(subscription.endpoint);
  t.equal(row?.status, 'active');
  t.equal(row?.expired_at, null);
});

t.test('simultaneous subscriptions of one new endpoint make one row: one 201, the rest 200', async (t) => {
  const subscription = fakeSubscription();
  const responses = await Promise.all([1, 2, 3, 4, 5].map(() => subscribe(subscription)));
  t.strictSame(responses.map((response) => response.statusCode).sort(), [200, 200, 200, 200, 201]);
  const ids = new Set(responses.map((response) => response.json<SubscribeBody>().subscriber.id));
  t.equal(ids.size, 1, 'one subscriber id');
  t.equal((await rowsFor(subscription.endpoint)).length, 1);
});

t.test('subscription ids are time-ordered (UUID version 7), whether stored alone or together', async (t) => {
  const millisecondsOf = (id: string) => Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
  const before = Date.now();
  const alone = await subscribe(fakeSubscription());
  // Subscribes that arrive together are stored by one batch statement.
  const together = await Promise.all(Array.from({ length: 8 }, () => subscribe(fakeSubscription())));
  const after = Date.now();
  const ids = [alone, ...together].map((response) => {
    t.equal(response.statusCode, 201);
    return response.json<SubscribeBody>().subscriber.id;
  });
  for (const id of ids) {
    t.match(id, UUID);
    t.equal(id[14], '7', `${id}: version 7`);
    t.match(id[19], /[89ab]/, `${id}: the RFC 9562 variant`);
    t.ok(millisecondsOf(id) >= before && millisecondsOf(id) <= after, `${id}: holds the millisecond it was made`);
  }
  const [first, ...rest] = ids.map(millisecondsOf);
  t.ok(
    rest.every((ms) => ms >= (first ?? Number.POSITIVE_INFINITY)),
    'a later subscription sorts no earlier',
  );
  t.equal(new Set(ids).size, ids.length, 'every id differs');
});

t.test('a missing field is 400 MISSING_FIELDS', async (t) => {
  const { endpoint, p256dh, auth } = fakeSubscription();
  for (const payload of [
    { p256dh, auth },
    { endpoint, auth },
    { endpoint, p256dh },
    { endpoint, keys: { p256dh } },
    { endpoint, keys: { auth } },
    { endpoint, keys: {} },
    { endpoint: '', p256dh, auth },
    { endpoint, p256dh: '', auth },
    {},
  ]) {
    assertError(t, await subscribe(payload), 'MISSING_FIELDS');
  }
  assertError(
    t,
    await app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(ownerA.secret) }),
    'MISSING_FIELDS',
  );
  t.equal((await rowsFor(endpoint)).length, 0);
});

t.test('an endpoint that is not https:// is 400 INVALID_URL', async (t) => {
  const { p256dh, auth } = fakeSubscription();
  for (const endpoint of [
    'http://fcm.googleapis.com/fcm/send/abc',
    'ftp://fcm.googleapis.com/fcm/send/abc',
    'fcm.googleapis.com/fcm/send/abc',
    'wss://fcm.googleapis.com/fcm/send/abc',
    'javascript:alert(1)',
  ]) {
    assertError(t, await subscribe({ endpoint, p256dh, auth }), 'INVALID_URL');
  }
});

t.test('a malformed or non-allowlisted endpoint is 400 INVALID_ENDPOINT', async (t) => {
  const { p256dh, auth } = fakeSubscription();
  const base = 'https://fcm.googleapis.com/fcm/send/';
  const cases: Record<string, string> = {
    'host not on the allowlist': 'https://evil.example.com/fcm/send/abc',
    'allowlisted name as a prefix': 'https://fcm.googleapis.com.evil.example/fcm/send/abc',
    'private address': 'https://169.254.169.254/latest/meta-data',
    loopback: 'https://127.0.0.1/push/abc',
    'IPv6 loopback': 'https://[::1]/push/abc',
    'user and password': 'https://user:secret@fcm.googleapis.com/fcm/send/abc',
    'user only': 'https://user@fcm.googleapis.com/fcm/send/abc',
    fragment: `${base}abc#fragment`,
    'empty fragment': `${base}abc#`,
    'no path': 'https://fcm.googleapis.com',
    'root path only': 'https://fcm.googleapis.com/',
    'no host': 'https:///fcm/send/abc',
    'over 2048 characters': `${base}${'a'.repeat(2049 - base.length)}`,
    'another port': 'https://fcm.googleapis.com:8443/fcm/send/abc',
    'bare wildcard domain': 'https://notify.windows.com/w/?token=abc',
  };
  for (const [label, endpoint] of Object.entries(cases)) {
    const response = await subscribe({ endpoint, p256dh, auth });
    t.equal(response.json<{ code?: string }>().code, 'INVALID_ENDPOINT', label);
    assertError(t, response, 'INVALID_ENDPOINT');
  }
  const [row] =
    await sql`select count(*)::int as n from subscriptions where endpoint not like 'https://fcm.googleapis.com/fcm/send/%'`;
  t.equal(row?.n, 0, 'none was stored');
});

t.test('well-formed endpoints of the default push services are accepted', async (t) => {
  const { p256dh, auth } = fakeSubscription();
  const base = 'https://fcm.googleapis.com/fcm/send/';
  for (const endpoint of [
    `${base}${'b'.repeat(2048 - base.length)}`, // exactly 2048 characters
    'https://fcm.googleapis.com:443/fcm/send/explicit-default-port',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAABuXJg',
    'https://web.push.apple.com/QGuQyavXutnMH0xu',
  ]) {
    t.equal((await subscribe({ endpoint, p256dh, auth })).statusCode, 201, endpoint.slice(0, 60));
  }
});

t.test('other bad shapes are 400 INVALID_INPUT', async (t) => {
  const { endpoint, p256dh, auth } = fakeSubscription();
  for (const payload of [
    { endpoint: 123, p256dh, auth },
    { endpoint, p256dh: 123, auth },
    { endpoint, p256dh, auth: { value: auth } },
    { endpoint, p256dh: 'not base64!', auth },
    { endpoint, p256dh: 'A'.repeat(257), auth },
    { endpoint, p256dh, auth, keys: 'p256dh' },
    { endpoint, keys: { p256dh: 1, auth: 2 } },
  ]) {
    assertError(t, await subscribe(payload), 'INVALID_INPUT');
  }
  t.equal((await rowsFor(endpoint)).length, 0);
});

t.test('key material no browser could hold is 400 INVALID_INPUT, and nothing is stored', async (t) => {
  const { endpoint, p256dh, auth } = fakeSubscription();
  const point = Buffer.from(p256dh, 'base64url');
  const offCurve = Buffer.from(point);
  offCurve[64] = (offCurve[64] ?? 0) ^ 1; // y changed by one bit: no longer on P-256
  const compressed = Buffer.concat([Buffer.from([2 + ((point[64] ?? 0) & 1)]), point.subarray(1, 33)]);
  const fieldOverflow = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 0xff)]); // x, y ≥ p
  for (const [label, payload] of [
    ['a point off the curve', { endpoint, p256dh: offCurve.toString('base64url'), auth }],
    ['a compressed point', { endpoint, p256dh: compressed.toString('base64url'), auth }],
    ['coordinates past the field', { endpoint, p256dh: fieldOverflow.toString('base64url'), auth }],
    ['64 bytes', { endpoint, p256dh: point.subarray(0, 64).toString('base64url'), auth }],
    ['auth of 15 bytes', { endpoint, p256dh, auth: Buffer.alloc(15, 1).toString('base64url') }],
    ['auth of 17 bytes', { endpoint, p256dh, auth: Buffer.alloc(17, 1).toString('base64url') }],
    ['the toJSON() shape, bad auth', { endpoint, keys: { p256dh, auth: 'c2hvcnQ' } }],
  ] as const) {
    t.comment(label);
    assertError(t, await subscribe(payload), 'INVALID_INPUT');
  }
  t.equal((await rowsFor(endpoint)).length, 0, 'nothing stored');
  t.equal((await subscribe({ endpoint, p256dh, auth })).statusCode, 201, 'the real keys are taken');
});

t.test('validation order: missing field, then INVALID_URL, then INVALID_ENDPOINT', async (t) => {
  const { p256dh, auth } = fakeSubscription();
  assertError(t, await subscribe({ endpoint: 'http://evil.example.com/x', p256dh }), 'MISSING_FIELDS');
  assertError(t, await subscribe({ endpoint: 'https://evil.example.com/x', auth }), 'MISSING_FIELDS');
  assertError(t, await subscribe({ endpoint: 'http://evil.example.com/x#frag', p256dh, auth }), 'INVALID_URL');
  assertError(
    t,
    await subscribe({ endpoint: 'https://evil.example.com/x', p256dh: 'not base64!', auth }),
    'INVALID_ENDPOINT',
  );
});

t.test('a key of any scope can subscribe', async (t) => {
  for (const scope of ['subscribe_only', 'notify', 'full']) {
    const key = await createKey(app, ownerA.user.token, ownerA.app.id, scope);
    t.equal((await subscribe(fakeSubscription(), key.secret)).statusCode, 201, scope);
  }
});

t.test('subscribe takes an API key: none, a session or an unknown key is 401', async (t) => {
  const payload = fakeSubscription();
  assertError(t, await app.inject({ method: 'POST', url: '/api/v1/subscribe', payload }), 'UNAUTHORIZED');
  const withCookie = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    payload,
    cookies: { wp_session: ownerA.user.token },
  });
  assertError(t, withCookie, 'UNAUTHORIZED');
  assertError(t, await subscribe(payload, ownerA.user.token), 'INVALID_API_KEY');
  assertError(t, await subscribe(payload, 'wpk_unknown'), 'INVALID_API_KEY');
  const basic = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: { authorization: `Basic ${ownerA.secret}` },
    payload,
  });
  assertError(t, basic, 'UNAUTHORIZED');
  t.equal((await rowsFor(payload.endpoint)).length, 0);
});

t.test('DELETE /subscribe answers 204, then 404 NOT_FOUND', async (t) => {
  const subscription = fakeSubscription();
  await subscribe(subscription);
  const response = await unsubscribe({ endpoint: subscription.endpoint });
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  t.equal((await rowsFor(subscription.endpoint)).length, 0, 'the row is gone');
  assertError(t, await unsubscribe({ endpoint: subscription.endpoint }), 'NOT_FOUND');
  assertError(t, await unsubscribe({}), 'MISSING_FIELDS');
  assertError(t, await unsubscribe({ endpoint: '' }), 'MISSING_FIELDS');
  assertError(t, await unsubscribe({ endpoint: 42 }), 'INVALID_INPUT');
  // The contract's field checks hold here too.
  assertError(t, await unsubscribe({ endpoint: subscription.endpoint.replace('https:', 'http:') }), 'INVALID_URL');
  assertError(t, await unsubscribe({ endpoint: 'https://evil.example/push/1' }), 'INVALID_ENDPOINT');
  const anonymous = await app.inject({ method: 'DELETE', url: '/api/v1/subscribe', payload: { endpoint: 'x' } });
  assertError(t, anonymous, 'UNAUTHORIZED');
});

t.test('GET /vapid-public-key returns the public key of the API key’s app', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(ownerA.secret) });
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { vapidPublicKey: ownerA.app.vapidPublicKey });
  const other = await app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(ownerB.secret) });
  t.strictSame(other.json(), { vapidPublicKey: ownerB.app.vapidPublicKey });
  t.not(ownerA.app.vapidPublicKey, ownerB.app.vapidPublicKey);
  assertError(t, await app.inject({ method: 'GET', url: '/api/v1/vapid-public-key' }), 'UNAUTHORIZED');
});

t.test('a key subscribes into its own app only: one endpoint in two apps is two rows', async (t) => {
  const subscription = fakeSubscription();
  const inA = await subscribe(subscription, ownerA.secret);
  const inB = await subscribe(subscription, ownerB.secret);
  t.equal(inA.statusCode, 201);
  t.equal(inB.statusCode, 201, 'new in B, whatever A has');
  t.not(inA.json<SubscribeBody>().subscriber.id, inB.json<SubscribeBody>().subscriber.id);
  const rows = await rowsFor(subscription.endpoint);
  t.strictSame(rows.map((row) => row.app_id).sort(), [ownerA.app.id, ownerB.app.id].sort());

  // Each copy lives on its own: expiring A's leaves B's active, and B's delete leaves A's.
  await sql`update subscriptions set status = 'expired' where app_id = ${ownerA.app.id} and endpoint = ${subscription.endpoint}`;
  t.equal((await subscribe(subscription, ownerB.secret)).statusCode, 200);
  const [bRow] =
    await sql`select status from subscriptions where app_id = ${ownerB.app.id} and endpoint = ${subscription.endpoint}`;
  t.equal(bRow?.status, 'active');
  const [aRow] =
    await sql`select status from subscriptions where app_id = ${ownerA.app.id} and endpoint = ${subscription.endpoint}`;
  t.equal(aRow?.status, 'expired', "B's subscribe does not touch A's copy");

  t.equal((await unsubscribe({ endpoint: subscription.endpoint }, ownerB.secret)).statusCode, 204);
  const left = await rowsFor(subscription.endpoint);
  t.strictSame(
    left.map((row) => row.app_id),
    [ownerA.app.id],
  );

  const onlyInB = fakeSubscription();
  await subscribe(onlyInB, ownerB.secret);
  assertError(t, await unsubscribe({ endpoint: onlyInB.endpoint }, ownerA.secret), 'NOT_FOUND');
  t.equal((await rowsFor(onlyInB.endpoint)).length, 1, "A's key cannot remove B's subscription");
});

t.test('PUSH_SERVICE_HOSTS replaces the allowlist; an entry with a port allows only that port', async (t) => {
  const local = await buildTestApp(t, { PUSH_SERVICE_HOSTS: 'localhost:8443' });
  const owner = await ownerWithKey(local.app, 'subscribe_only');
  const { p256dh, auth } = fakeSubscription();
  const send = (endpoint: string) =>
    local.app.inject({
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: bearer(owner.secret),
      payload: { endpoint, p256dh, auth },
    });
  t.equal((await send('https://localhost:8443/push/abc')).statusCode, 201, 'the listed port');
  assertError(t, await send('https://localhost/push/abc'), 'INVALID_ENDPOINT');
  assertError(t, await send('https://localhost:443/push/abc'), 'INVALID_ENDPOINT');
  assertError(t, await send('https://localhost:8444/push/abc'), 'INVALID_ENDPOINT');
  assertError(t, await send('https://fcm.googleapis.com/fcm/send/abc'), 'INVALID_ENDPOINT');
  assertError(t, await send('https://sub.localhost:8443/push/abc'), 'INVALID_ENDPOINT');
});
