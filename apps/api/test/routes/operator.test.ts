import { Writable } from 'node:stream';
import { errorDetails } from '@webpush/errors';
import { type MailServer, startMailServer } from '@webpush/testing';
import type { LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { assertError, TEST_PUBLIC_URL } from '../assertions.js';
import {
  bearer,
  buildTestApp,
  createApp,
  createKey,
  fakeSubscription,
  ownerWithKey,
  registerUser,
  uniqueEmail,
} from '../helper.js';

// The operator console: operators see and manage every account; anybody else is refused and learns nothing.

const OPERATOR_EMAIL = 'operator-inbox@example.com';
const mail: MailServer = await startMailServer();
t.teardown(() => mail.close());
const { app, database } = await buildTestApp(t, {
  ...mail.env,
  OPERATOR_EMAIL,
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_API_KEY_MAX: '1000',
});
const sql = database.sql;

const operator = await registerUser(app, uniqueEmail('operator'));
await sql`update users set role = 'operator' where id = ${operator.user.id}`;

// A customer with one app, two keys, one subscriber and a send of this month.
const customer = await ownerWithKey(app, 'full');
const subscription = fakeSubscription();
const subscribed = await app.inject({
  method: 'POST',
  url: '/api/v1/subscribe',
  headers: bearer(customer.secret),
  payload: subscription,
});
if (subscribed.statusCode !== 201) throw new Error(`subscribe failed: ${subscribed.body}`);
const sent = await app.inject({
  method: 'POST',
  url: '/api/v1/notify',
  headers: bearer(customer.secret),
  payload: { title: 'Hi', body: 'there' },
});
if (sent.statusCode !== 202) throw new Error(`notify failed: ${sent.body}`);
const bystander = await registerUser(app, uniqueEmail('bystander'));

const as = (token: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  app.inject({ method, url: `/api/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

interface TenantBody {
  id: string;
  email: string;
  plan: string;
  role: string;
  suspended: boolean;
  apps: number;
  subscribers: number;
  sendsThisMonth: number;
}

t.test('every console route refuses a customer (403 FORBIDDEN) and a request without a session', async (t) => {
  const before = await sql`select id, plan, role, suspended_at from users order by id`;
  const requestId = (
    (await as(bystander.token, 'POST', '/plan-requests', { plan: 'pro' })).json() as { planRequest: { id: string } }
  ).planRequest.id;
  const routes: [method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object][] = [
    ['GET', '/operator/tenants'],
    ['GET', `/operator/tenants?q=${encodeURIComponent(customer.user.email)}`],
    ['PATCH', `/operator/tenants/${customer.user.user.id}/plan`, { plan: 'enterprise' }],
    ['PUT', `/operator/tenants/${customer.user.user.id}/suspension`],
    ['DELETE', `/operator/tenants/${customer.user.user.id}/suspension`],
    ['GET', '/operator/plan-requests'],
    ['POST', `/operator/plan-requests/${requestId}/grant`],
  ];
  for (const [method, url, payload] of routes) {
    const refused = await as(customer.user.token, method, url, payload);
    t.equal(refused.statusCode, 403, `${method} ${url}: a customer is refused`);
    assertError(t, refused, 'FORBIDDEN');
    t.notMatch(refused.body, customer.user.email, 'no account data in the answer');
    const anonymous = await app.inject({ method, url: `/api/v1${url}`, ...(payload ? { payload } : {}) });
    assertError(t, anonymous, 'UNAUTHORIZED');
    // A customer's bearer API key is not a session either.
    assertError(t, await as(customer.secret, method, url, payload), 'INVALID_SESSION');
  }
  const after = await sql`select id, plan, role, suspended_at from users order by id`;
  t.same(after, before, 'no account changed');
  const [open] = await sql`select status from plan_requests where id = ${requestId}`;
  t.equal(open?.status, 'open', 'the request was not granted');
  await sql`delete from plan_requests where id = ${requestId}`;
});

t.test('an operator sees every account with its plan, apps, subscribers and sends this month', async (t) => {
  const listed = await as(operator.token, 'GET', '/operator/tenants?limit=100');
  t.equal(listed.statusCode, 200);
  const { tenants, nextCursor } = listed.json() as { tenants: TenantBody[]; nextCursor: string | null };
  t.equal(nextCursor, null);
  t.same(
    tenants.map((tenant) => tenant.email),
    [operator.email, customer.user.email, bystander.email].sort(),
    'all accounts, in e-mail order',
  );
  const row = tenants.find((tenant) => tenant.email === customer.user.email);
  t.match(row, {
    id: customer.user.user.id,
    plan: 'free',
    role: 'customer',
    suspended: false,
    apps: 1,
    subscribers: 1,
    sendsThisMonth: 1,
  });
  t.match(
    tenants.find((tenant) => tenant.email === operator.email),
    { role: 'operator', apps: 0, sendsThisMonth: 0 },
  );

  // Keyset pages of one: each account once, then a null cursor.
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: LightMyRequestResponse = await as(
      operator.token,
      'GET',
      `/operator/tenants?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
    );
    t.equal(page.statusCode, 200);
    const body = page.json() as { tenants: TenantBody[]; nextCursor: string | null };
    t.ok(body.tenants.length <= 1);
    seen.push(...body.tenants.map((tenant) => tenant.email));
    cursor = body.nextCursor;
  } while (cursor !== null && seen.length < 10);
  t.same(seen, [operator.email, customer.user.email, bystander.email].sort(), 'the pages walk every account once');

  const searched = await as(operator.token, 'GET', `/operator/tenants?q=${encodeURIComponent('BYSTANDER-')}`);
  t.same(
    (searched.json() as { tenants: TenantBody[] }).tenants.map((tenant) => tenant.email),
    [bystander.email],
    'q keeps the e-mails that start with it, in any case',
  );
  const percent = await as(operator.token, 'GET', `/operator/tenants?q=${encodeURIComponent('%')}`);
  t.same((percent.json() as { tenants: TenantBody[] }).tenants, [], 'LIKE characters are taken literally');

  assertError(t, await as(operator.token, 'GET', '/operator/tenants?cursor=not%20a%20cursor'), 'INVALID_INPUT');
  assertError(t, await as(operator.token, 'GET', '/operator/tenants?limit=0'), 'INVALID_INPUT');
  assertError(t, await as(operator.token, 'GET', '/operator/tenants?limit=101'), 'INVALID_INPUT');
});

t.test('an operator changes a plan, and the new limits hold at once', async (t) => {
  const second = () => createApp(app, customer.user.token, 'Second app');
  await t.rejects(second(), /PLAN_LIMIT_EXCEEDED/, 'Free: one app');
  const moved = await as(operator.token, 'PATCH', `/operator/tenants/${customer.user.user.id}/plan`, { plan: 'pro' });
  t.equal(moved.statusCode, 200);
  t.match(moved.json(), { tenant: { id: customer.user.user.id, plan: 'pro', apps: 1 } });
  const created = await second();
  t.equal(created.name, 'Second app', 'Pro: a second app');
  const me = await as(customer.user.token, 'GET', '/auth/me');
  t.equal((me.json() as { user: { plan: string } }).user.plan, 'pro');

  assertError(
    t,
    await as(operator.token, 'PATCH', `/operator/tenants/${customer.user.user.id}/plan`, { plan: 'gold' }),
    'INVALID_INPUT',
  );
  assertError(
    t,
    await as(operator.token, 'PATCH', `/operator/tenants/${customer.user.user.id}/plan`, {}),
    'MISSING_FIELDS',
  );
  const unknown = '00000000-0000-4000-8000-000000000000';
  assertError(t, await as(operator.token, 'PATCH', `/operator/tenants/${unknown}/plan`, { plan: 'pro' }), 'NOT_FOUND');
  assertError(t, await as(operator.token, 'PATCH', '/operator/tenants/not-a-uuid/plan', { plan: 'pro' }), 'NOT_FOUND');
});

t.test(
  'a suspended account: keys INVALID_API_KEY, sessions INVALID_SESSION, nothing deleted; resume restores',
  async (t) => {
    const counts = async () =>
      (
        await sql`select
        (select count(*)::int from apps where user_id = ${customer.user.user.id}) as apps,
        (select count(*)::int from api_keys k join apps a on a.id = k.app_id where a.user_id = ${customer.user.user.id}) as keys,
        (select count(*)::int from sessions where user_id = ${customer.user.user.id}) as sessions,
        (select count(*)::int from subscriptions s join apps a on a.id = s.app_id where a.user_id = ${customer.user.user.id}) as subscriptions`
      )[0];
    const before = await counts();
    if (!before) throw new Error('no counts');
    const subscribeKey = await createKey(app, customer.user.token, customer.app.id, 'subscribe_only');

    const suspended = await as(operator.token, 'PUT', `/operator/tenants/${customer.user.user.id}/suspension`);
    t.equal(suspended.statusCode, 200);
    t.match(suspended.json(), { tenant: { suspended: true } });

    // Through the real auth path: a key route, a browser key route, and session routes.
    assertError(t, await as(customer.secret, 'POST', '/notify', { title: 'a', body: 'b' }), 'INVALID_API_KEY');
    assertError(t, await as(subscribeKey.secret, 'POST', '/subscribe', fakeSubscription()), 'INVALID_API_KEY');
    assertError(t, await as(customer.user.token, 'GET', '/auth/me'), 'INVALID_SESSION');
    assertError(t, await as(customer.user.token, 'GET', '/apps'), 'INVALID_SESSION');
    const cookie = await app.inject({
      method: 'GET',
      url: '/api/v1/apps',
      cookies: { wp_session: customer.user.token },
    });
    assertError(t, cookie, 'INVALID_SESSION');
    t.same(await counts(), { ...before, keys: before.keys + 1 }, 'apps, keys, sessions and subscriptions are all kept');
    // The bystander is untouched.
    t.equal((await as(bystander.token, 'GET', '/auth/me')).statusCode, 200);

    const again = await as(operator.token, 'PUT', `/operator/tenants/${customer.user.user.id}/suspension`);
    t.equal(again.statusCode, 200, 'suspending twice is fine');

    const resumed = await as(operator.token, 'DELETE', `/operator/tenants/${customer.user.user.id}/suspension`);
    t.equal(resumed.statusCode, 200);
    t.match(resumed.json(), { tenant: { suspended: false, suspendedAt: null } });
    t.equal((await as(customer.secret, 'POST', '/notify', { title: 'a', body: 'b' })).statusCode, 202, 'the key works');
    t.equal((await as(customer.user.token, 'GET', '/auth/me')).statusCode, 200, 'the session works');
    t.equal((await as(subscribeKey.secret, 'POST', '/subscribe', fakeSubscription())).statusCode, 201);

    assertError(
      t,
      await as(operator.token, 'PUT', `/operator/tenants/${operator.user.id}/suspension`),
      'INVALID_INPUT',
    );
    t.equal((await as(operator.token, 'GET', '/auth/me')).statusCode, 200, 'an operator cannot lock themself out');
    assertError(
      t,
      await as(operator.token, 'PUT', '/operator/tenants/00000000-0000-4000-8000-000000000000/suspension'),
      'NOT_FOUND',
    );
  },
);

t.test('a plan request: e-mailed to OPERATOR_EMAIL, listed in the console, granted in one click', async (t) => {
  const asker = await registerUser(app, uniqueEmail('asker'));
  const first = await as(asker.token, 'POST', '/plan-requests', { plan: 'enterprise', message: '  Launch in May  ' });
  t.equal(first.statusCode, 201);
  const { planRequest } = first.json() as {
    planRequest: { id: string; plan: string; status: string; message: string };
  };
  t.match(planRequest, { plan: 'enterprise', status: 'open', message: 'Launch in May' });
  t.equal(first.json().operatorEmailed, true, 'the answer says the operator is e-mailed');

  const message = await mail.waitFor(OPERATOR_EMAIL, { matching: (m) => m.text.includes(asker.email) });
  t.match(message.parsed.subject, asker.email);
  t.match(message.text, 'Enterprise');
  t.match(message.text, 'Launch in May');
  t.ok(message.text.split('\n').includes(`${TEST_PUBLIC_URL}/operator`), 'the console link on a line of its own');
  t.match(message.parsed.html || '', `href="${TEST_PUBLIC_URL}/operator"`);

  const changed = await as(asker.token, 'POST', '/plan-requests', { plan: 'pro' });
  t.equal(changed.statusCode, 200, 'asking again changes the open request');
  t.equal((changed.json() as { planRequest: { id: string } }).planRequest.id, planRequest.id);
  assertError(t, await as(asker.token, 'POST', '/plan-requests', { plan: 'platinum' }), 'INVALID_INPUT');
  assertError(t, await as(asker.token, 'POST', '/plan-requests', {}), 'MISSING_FIELDS');

  const own = await as(asker.token, 'GET', '/plan-requests');
  t.match(own.json(), { planRequests: [{ id: planRequest.id, plan: 'pro', status: 'open' }] });
  t.same((await as(bystander.token, 'GET', '/plan-requests')).json(), { planRequests: [] }, 'others see none of it');

  const listed = await as(operator.token, 'GET', '/operator/plan-requests');
  t.equal(listed.statusCode, 200);
  t.match(listed.json(), {
    planRequests: [{ id: planRequest.id, email: asker.email, currentPlan: 'free', plan: 'pro', status: 'open' }],
  });

  const granted = await as(operator.token, 'POST', `/operator/plan-requests/${planRequest.id}/grant`);
  t.equal(granted.statusCode, 200);
  t.match(granted.json(), {
    planRequest: { id: planRequest.id, status: 'granted', email: asker.email },
    tenant: { email: asker.email, plan: 'pro' },
  });
  t.equal(((await as(asker.token, 'GET', '/auth/me')).json() as { user: { plan: string } }).user.plan, 'pro');
  const [row] = await sql`select status, resolved_by, resolved_at from plan_requests where id = ${planRequest.id}`;
  t.equal(row?.status, 'granted');
  t.equal(row?.resolved_by, operator.user.id, 'who granted it is recorded');
  t.same((await as(operator.token, 'GET', '/operator/plan-requests')).json(), { planRequests: [] }, 'off the list');

  assertError(t, await as(operator.token, 'POST', `/operator/plan-requests/${planRequest.id}/grant`), 'NOT_FOUND');
  assertError(t, await as(operator.token, 'POST', '/operator/plan-requests/not-a-uuid/grant'), 'NOT_FOUND');

  for (const plan of ['pro', 'free']) {
    assertError(t, await as(asker.token, 'POST', '/plan-requests', { plan }), 'INVALID_INPUT', {
      message: errorDetails.PLAN_NOT_AN_UPGRADE.message,
    });
  }
  t.same(
    (await as(operator.token, 'GET', '/operator/plan-requests')).json(),
    { planRequests: [] },
    'a request for the same or a lower plan is not stored',
  );

  const next = await as(asker.token, 'POST', '/plan-requests', { plan: 'enterprise' });
  t.equal(next.statusCode, 201, 'after a grant, a new request is a new one');
});

t.test('without OPERATOR_EMAIL, a plan request says it waits in the console, and the API warns at boot', async (t) => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const unmailed = await buildTestApp(t, { ...mail.env, LOG_LEVEL: 'warn' }, { logStream });
  t.ok(
    lines.some((line) =>
      line.includes('OPERATOR_EMAIL is not set: plan requests from /pricing only appear in the operator console'),
    ),
    'a warning at boot',
  );
  const asker = await registerUser(unmailed.app, uniqueEmail('unmailed'));
  const asked = await unmailed.app.inject({
    method: 'POST',
    url: '/api/v1/plan-requests',
    headers: bearer(asker.token),
    payload: { plan: 'pro' },
  });
  t.equal(asked.statusCode, 201);
  t.equal(asked.json().operatorEmailed, false);
  const prices = await unmailed.app.inject({ method: 'GET', url: '/api/v1/plans/prices' });
  t.equal(prices.json().operatorEmailed, false, 'the pricing page can say so before the request');
});
