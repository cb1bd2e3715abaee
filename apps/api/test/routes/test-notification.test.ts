import { type FakeReply, type FakeSubscription, startFakePushService, unusedPort } from '@webpush/testing';
import t from 'tap';
import { TEST_NOTIFICATION } from '../../src/routes/apps/_appId/test-notification/index.js';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, createKey, ownerWithKey, registerUser } from '../helper.js';

const push = await startFakePushService();
t.teardown(() => push.close()); // registered first, so it runs after the app (and its sender) closed
const deadPort = await unusedPort();
const ctx = await buildTestApp(
  t,
  { PUSH_SERVICE_HOSTS: `${push.hostRule},localhost:${deadPort}`, RATE_LIMIT_API_KEY_MAX: '10000' },
  { pushExtraCa: push.caPem },
);
const { app, config } = ctx;
const sql = ctx.database.sql;

const owner = await ownerWithKey(app, 'full');
const other = await ownerWithKey(app, 'full');

const sendTest = (appId: string, token: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/test-notification`,
    headers: bearer(token),
    payload: payload as object,
  });
const subscriptionBody = (sub: FakeSubscription) => ({
  subscription: { endpoint: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth },
});

/** Everything a send could leave behind: stored subscriptions, notifications, monthly usage. */
const storedState = async () => ({
  subscriptions: [
    ...(await sql`select id, app_id, endpoint, status, expired_at, updated_at from subscriptions order by id`),
  ],
  notifications: [...(await sql`select id from notifications order by id`)],
  usage: [...(await sql`select user_id, month, sends from monthly_usage order by user_id, month`)],
});

t.test(
  'with a session: 200 {ok:true}; the push service decrypted the fixed payload and verified the app key',
  async (t) => {
    const sub = push.subscribe();
    const response = await sendTest(owner.app.id, owner.user.token, subscriptionBody(sub));
    t.equal(response.statusCode, 200);
    t.strictSame(response.json(), { ok: true });
    const delivered = push.deliveredTo(sub.id);
    t.equal(delivered.length, 1, 'exactly one push');
    const [message] = delivered;
    t.strictSame(JSON.parse(message?.payload ?? 'null'), {
      title: 'テスト通知',
      body: 'プッシュ通知は正しく設定されています。',
      id: 'test',
    });
    t.equal(message?.payload, JSON.stringify({ ...TEST_NOTIFICATION, id: 'test' }), 'carries "id":"test"');
    t.equal(message?.vapidPublicKey, owner.app.vapidPublicKey, "k is the app's VAPID key");
    t.equal(message?.claims.aud, push.origin);
    t.equal(message?.claims.sub, config.vapidSubject);
    t.equal(config.vapidSubject, 'mailto:admin@localhost', 'default subject for an http PUBLIC_URL');
    t.equal(message?.ttl, 300);
    t.equal(message?.urgency, 'high');
    t.same(push.protocolErrors, []);
  },
);

t.test('with a full key of the app: 200 {ok:true}, signed with that app key', async (t) => {
  const sub = push.subscribe();
  const response = await sendTest(owner.app.id, owner.secret, subscriptionBody(sub));
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { ok: true });
  t.equal(push.deliveredTo(sub.id)[0]?.vapidPublicKey, owner.app.vapidPublicKey);
  const otherSub = push.subscribe();
  t.equal((await sendTest(other.app.id, other.secret, subscriptionBody(otherSub))).statusCode, 200);
  t.equal(
    push.deliveredTo(otherSub.id)[0]?.vapidPublicKey,
    other.app.vapidPublicKey,
    'each app signs with its own key',
  );
  t.not(owner.app.vapidPublicKey, other.app.vapidPublicKey);
});

t.test('the push service answering 404 or 410 is 410 SUBSCRIPTION_EXPIRED', async (t) => {
  for (const status of [410, 404]) {
    const sub = push.subscribe();
    push.script(sub.id, { status });
    assertError(t, await sendTest(owner.app.id, owner.user.token, subscriptionBody(sub)), 'SUBSCRIPTION_EXPIRED');
    t.equal(push.received.filter((m) => m.subscriptionId === sub.id).length, 1, `one push answered ${status}`);
  }
});

t.test('any other failure is 502 PUSH_FAILED, with no second attempt', async (t) => {
  const replies: FakeReply[] = [
    { status: 400 },
    { status: 403 },
    { status: 413 },
    { status: 429, retryAfter: '30' },
    { status: 500 },
    { status: 503 },
  ];
  for (const reply of replies) {
    const sub = push.subscribe();
    push.script(sub.id, reply);
    const response = await sendTest(owner.app.id, owner.secret, subscriptionBody(sub));
    assertError(t, response, 'PUSH_FAILED');
    t.equal(response.statusCode, 502);
    t.equal(push.received.filter((m) => m.subscriptionId === sub.id).length, 1, `one push answered ${reply.status}`);
  }
});

t.test('an unreachable push service is 502 PUSH_FAILED', async (t) => {
  const sub = push.subscribe();
  const endpoint = `https://localhost:${deadPort}/push/${sub.id}`;
  const response = await sendTest(owner.app.id, owner.secret, {
    subscription: { endpoint, p256dh: sub.p256dh, auth: sub.auth },
  });
  assertError(t, response, 'PUSH_FAILED');
});

t.test('keys that are not a P-256 point and a 16-byte secret are 502 PUSH_FAILED, nothing sent', async (t) => {
  const sub = push.subscribe();
  const before = push.received.length;
  const shortKey = { ...subscriptionBody(sub).subscription, p256dh: sub.p256dh.slice(0, 40) };
  assertError(t, await sendTest(owner.app.id, owner.secret, { subscription: shortKey }), 'PUSH_FAILED');
  const shortAuth = { ...subscriptionBody(sub).subscription, auth: 'AAAAAAAA' };
  assertError(t, await sendTest(owner.app.id, owner.secret, { subscription: shortAuth }), 'PUSH_FAILED');
  t.equal(push.received.length, before);
});

t.test('validation: MISSING_FIELDS, INVALID_URL, INVALID_ENDPOINT, INVALID_INPUT; nothing sent', async (t) => {
  const sub = push.subscribe();
  const { subscription } = subscriptionBody(sub);
  const before = push.received.length;
  const send = (payload: unknown) => sendTest(owner.app.id, owner.user.token, payload);
  assertError(t, await send({}), 'MISSING_FIELDS');
  assertError(t, await send({ subscription: { p256dh: sub.p256dh, auth: sub.auth } }), 'MISSING_FIELDS');
  assertError(t, await send({ subscription: { endpoint: sub.endpoint, auth: sub.auth } }), 'MISSING_FIELDS');
  assertError(t, await send({ subscription: { endpoint: sub.endpoint, p256dh: sub.p256dh } }), 'MISSING_FIELDS');
  assertError(t, await send({ subscription: { ...subscription, endpoint: '' } }), 'MISSING_FIELDS');
  assertError(
    t,
    await send({ subscription: { ...subscription, endpoint: sub.endpoint.replace('https:', 'http:') } }),
    'INVALID_URL',
  );
  const offList = 'https://push.attacker.example/push/abc';
  assertError(t, await send({ subscription: { ...subscription, endpoint: offList } }), 'INVALID_ENDPOINT');
  const otherPort = `https://localhost:${push.port + 1}/push/abc`;
  assertError(t, await send({ subscription: { ...subscription, endpoint: otherPort } }), 'INVALID_ENDPOINT');
  assertError(t, await send({ subscription: 'not an object' }), 'INVALID_INPUT');
  t.equal(push.received.length, before, 'no request reached the push service');
});

t.test('auth: scope, app binding, tenancy', async (t) => {
  const sub = push.subscribe();
  const body = subscriptionBody(sub);
  const notifyKey = await createKey(app, owner.user.token, owner.app.id, 'notify');
  const browserKey = await createKey(app, owner.user.token, owner.app.id, 'subscribe_only');
  assertError(t, await sendTest(owner.app.id, notifyKey.secret, body), 'INSUFFICIENT_SCOPE');
  assertError(t, await sendTest(owner.app.id, browserKey.secret, body), 'INSUFFICIENT_SCOPE');
  assertError(t, await sendTest(other.app.id, owner.secret, body), 'APP_MISMATCH');
  assertError(t, await sendTest(other.app.id, owner.user.token, body), 'NOT_FOUND');
  assertError(t, await sendTest('not-a-uuid', owner.user.token, body), 'NOT_FOUND');
  assertError(t, await sendTest('00000000-0000-4000-8000-000000000000', owner.user.token, body), 'NOT_FOUND');
  assertError(t, await sendTest(owner.app.id, 'wpk_not-a-real-key', body), 'INVALID_API_KEY');
  assertError(
    t,
    await app.inject({ method: 'POST', url: `/api/v1/apps/${owner.app.id}/test-notification`, payload: body }),
    'UNAUTHORIZED',
  );
  t.same(push.deliveredTo(sub.id), [], 'none of these sent anything');
});

t.test('a user with two apps sends as the app in the URL', async (t) => {
  const user = await registerUser(app);
  await sql`update users set plan = 'pro' where id = ${user.user.id}`;
  const first = await createApp(app, user.token, 'first');
  const second = await createApp(app, user.token, 'second');
  const sub = push.subscribe();
  t.equal((await sendTest(second.id, user.token, subscriptionBody(sub))).statusCode, 200);
  t.equal(push.deliveredTo(sub.id)[0]?.vapidPublicKey, second.vapidPublicKey);
  t.not(first.vapidPublicKey, second.vapidPublicKey);
});

t.test('stores nothing and counts nothing; a 410 leaves the stored subscription active', async (t) => {
  const sub = push.subscribe();
  const stored = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: sub.endpoint, p256dh: sub.p256dh, auth: sub.auth },
  });
  t.equal(stored.statusCode, 201);
  const before = await storedState();
  t.equal(before.subscriptions.length, 1, 'the one subscription stored above');

  t.equal((await sendTest(owner.app.id, owner.secret, subscriptionBody(sub))).statusCode, 200);
  const fresh = push.subscribe();
  t.equal((await sendTest(owner.app.id, owner.user.token, subscriptionBody(fresh))).statusCode, 200);
  push.script(sub.id, { status: 410 });
  assertError(t, await sendTest(owner.app.id, owner.user.token, subscriptionBody(sub)), 'SUBSCRIPTION_EXPIRED');

  t.strictSame(await storedState(), before, 'subscriptions, notifications and usage unchanged');
  const [row] = await sql`select status from subscriptions where endpoint = ${sub.endpoint}`;
  t.equal(row?.status, 'active');
  const appView = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.match(appView.json(), { app: { stats: { sendsThisMonth: 0, activeSubscribers: 1, expiredSubscribers: 0 } } });
});

t.test('no message was refused by the push service for its VAPID or encryption', async (t) => {
  t.same(push.protocolErrors, []);
});

t.test('the subscription may also come in the browser’s toJSON() shape {endpoint, keys:{p256dh, auth}}', async (t) => {
  const sub = push.subscribe();
  const response = await sendTest(owner.app.id, owner.user.token, {
    subscription: { endpoint: sub.endpoint, expirationTime: null, keys: { p256dh: sub.p256dh, auth: sub.auth } },
  });
  t.equal(response.statusCode, 200, response.body);
  t.equal(push.deliveredTo(sub.id).length, 1, 'delivered with the nested keys');
  const missing = await sendTest(owner.app.id, owner.user.token, {
    subscription: { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh } },
  });
  assertError(t, missing, 'MISSING_FIELDS');
});
