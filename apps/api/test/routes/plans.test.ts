import { plans } from '@webpush/plans';
import t from 'tap';
import { buildTestApp } from '../helper.js';

// GET /plans (no auth): what the pricing page shows (docs/dashboard.md).
const ctx = await buildTestApp(t);
const { app } = ctx;

t.test('GET /plans lists every plan with its limits; a limit that does not exist is null', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/api/v1/plans' });
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/);
  t.strictSame(response.json(), {
    plans: [
      { id: 'free', name: 'Free', limits: { apps: 1, subscribers: 1_000, sendsPerMonth: 30_000 } },
      { id: 'pro', name: 'Pro', limits: { apps: 10, subscribers: 100_000, sendsPerMonth: 3_000_000 } },
      { id: 'enterprise', name: 'Enterprise', limits: { apps: null, subscribers: null, sendsPerMonth: null } },
    ],
  });
  t.equal(plans.pro.sendsPerMonth, 3_000_000, 'the figures come from the plans package');
});

t.test('GET /plans needs no session, and ignores a bad one', async (t) => {
  const response = await app.inject({
    method: 'GET',
    url: '/api/v1/plans',
    headers: { authorization: 'Bearer wps_not-a-session' },
  });
  t.equal(response.statusCode, 200);
});

t.test('GET /plans/prices: each plan’s price as configured, null where none is set', async (t) => {
  const fallback = await app.inject({ method: 'GET', url: '/api/v1/plans/prices' });
  t.equal(fallback.statusCode, 200);
  t.strictSame(fallback.json(), { prices: { free: '0', pro: null, enterprise: null }, operatorEmailed: false });

  const priced = await buildTestApp(t, {
    PLAN_PRICE_PRO: ' ¥3,000 / month ',
    PLAN_PRICE_ENTERPRISE: '',
    OPERATOR_EMAIL: 'ops@example.com',
  });
  const response = await priced.app.inject({ method: 'GET', url: '/api/v1/plans/prices' });
  t.strictSame(response.json(), {
    prices: { free: '0', pro: '¥3,000 / month', enterprise: null },
    operatorEmailed: true,
  });
  const list = await priced.app.inject({ method: 'GET', url: '/api/v1/plans' });
  t.strictSame(Object.keys(list.json().plans[0]), ['id', 'name', 'limits'], 'GET /plans keeps its shape');
});
