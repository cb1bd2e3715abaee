import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, fakeSubscription, ownerWithKey } from '../helper.js';

// GET /apps/:appId/usage: the owner's month against the plan, and the app's sends per UTC day.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

interface UsageBody {
  month: { sends: number; limit: number | null };
  days: { date: string; sends: number }[];
}

const usage = (token: string, appId: string, query = '') =>
  app.inject({ method: 'GET', url: `/api/v1/apps/${appId}/usage${query}`, headers: bearer(token) });

/** The UTC date `daysAgo` days before today, as YYYY-MM-DD. */
const utcDate = (daysAgo: number) => {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() - daysAgo);
  return date.toISOString().slice(0, 10);
};

/** A finished notification of `targets` sends accepted `daysAgo` days ago at `time` (UTC). */
const seedNotification = (appId: string, targets: number, daysAgo: number, time = '12:00:00') =>
  sql`insert into notifications (app_id, payload, ttl, urgency, target_kind, status, targets, created_at)
    values (${appId}, '{"title":"T","body":"B"}', 60, 'normal', 'all', 'completed', ${targets},
      ((now() at time zone 'UTC')::date - ${daysAgo}::int + ${time}::time) at time zone 'UTC')`;

const setMonthlyUsage = (userId: string, sends: number) =>
  sql`insert into monthly_usage (user_id, month, sends)
    values (${userId}, date_trunc('month', now() at time zone 'UTC')::date, ${sends})
    on conflict (user_id, month) do update set sends = excluded.sends`;

const owner = await ownerWithKey(app, 'notify');
const stranger = await ownerWithKey(app, 'notify');

t.test('days: one entry per UTC day, oldest first, zero-filled, this app’s sends only', async (t) => {
  const user = await ownerWithKey(app, 'notify');
  await sql`update users set plan = 'pro' where id = ${user.user.user.id}`;
  const sibling = await createApp(app, user.user.token, 'Sibling');
  await seedNotification(user.app.id, 5, 0, '00:00:00');
  await seedNotification(user.app.id, 2, 0, '23:59:59');
  await seedNotification(user.app.id, 7, 3);
  await seedNotification(user.app.id, 1, 29, '00:00:00');
  await seedNotification(user.app.id, 100, 30, '23:59:59'); // outside a 30-day window
  await seedNotification(sibling.id, 50, 0); // another app of the same user
  await seedNotification(stranger.app.id, 40, 0); // another user's app

  const response = await usage(user.user.token, user.app.id);
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/);
  const body = response.json() as UsageBody;
  t.equal(body.days.length, 30, 'default 30 days');
  const expected = Array.from({ length: 30 }, (_, i) => {
    const daysAgo = 29 - i;
    const sends = { 0: 7, 3: 7, 29: 1 }[daysAgo] ?? 0;
    return { date: utcDate(daysAgo), sends };
  });
  t.strictSame(body.days, expected, 'oldest first, today last, empty days as 0');

  const week = (await usage(user.user.token, user.app.id, '?days=7')).json() as UsageBody;
  t.strictSame(week.days, expected.slice(-7));
  const today = (await usage(user.user.token, user.app.id, '?days=1')).json() as UsageBody;
  t.strictSame(today.days, [{ date: utcDate(0), sends: 7 }]);
  const quarter = (await usage(user.user.token, user.app.id, '?days=90')).json() as UsageBody;
  t.equal(quarter.days.length, 90);
  t.equal(quarter.days[0]?.date, utcDate(89));
  t.equal(quarter.days.find((day) => day.date === utcDate(30))?.sends, 100);
});

t.test('month: the owner’s sends this month across apps, against the plan’s limit', async (t) => {
  const user = await ownerWithKey(app, 'notify');
  const fresh = (await usage(user.user.token, user.app.id)).json() as UsageBody;
  t.strictSame(fresh.month, { sends: 0, limit: 30_000 }, 'free plan, nothing sent');

  // Real sends through both routes count, as accepted.
  const subscriber = fakeSubscription();
  await app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(user.secret), payload: subscriber });
  await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(user.secret),
    payload: { title: 'T', body: 'B' },
  });
  await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${user.app.id}/notifications`,
    headers: bearer(user.user.token),
    payload: { title: 'T', body: 'B' },
  });
  const afterSends = (await usage(user.user.token, user.app.id)).json() as UsageBody;
  t.strictSame(afterSends.month, { sends: 2, limit: 30_000 });
  t.equal(afterSends.days.at(-1)?.sends, 2, 'today shows both sends');

  // Last month does not count; the month figure is per user.
  await sql`insert into monthly_usage (user_id, month, sends)
    values (${user.user.user.id}, (date_trunc('month', now() at time zone 'UTC') - interval '1 month')::date, 999)`;
  await setMonthlyUsage(user.user.user.id, 12_345);
  await sql`update users set plan = 'pro' where id = ${user.user.user.id}`;
  const second = await createApp(app, user.user.token, 'Second');
  const onSecond = (await usage(user.user.token, second.id)).json() as UsageBody;
  t.strictSame(onSecond.month, { sends: 12_345, limit: 3_000_000 }, 'the same month figure on every app of the user');
  t.ok(
    onSecond.days.every((day) => day.sends === 0),
    'but the days are the app’s own',
  );

  await sql`update users set plan = 'enterprise' where id = ${user.user.user.id}`;
  const unlimited = (await usage(user.user.token, user.app.id)).json() as UsageBody;
  t.strictSame(unlimited.month, { sends: 12_345, limit: null }, 'no limit is null');
});

t.test('a bad days value is 400 INVALID_INPUT', async (t) => {
  for (const query of ['?days=0', '?days=91', '?days=abc', '?days=-1', '?days=1.5', '?days=', '?days=1&days=2']) {
    t.test(query, async (t) => assertError(t, await usage(owner.user.token, owner.app.id, query), 'INVALID_INPUT'));
  }
});

t.test('another user’s app, an unknown app or a malformed id is 404; a session is required', async (t) => {
  assertError(t, await usage(owner.user.token, stranger.app.id), 'NOT_FOUND');
  assertError(t, await usage(owner.user.token, '00000000-0000-4000-8000-000000000000'), 'NOT_FOUND');
  assertError(t, await usage(owner.user.token, 'not-a-uuid'), 'NOT_FOUND');
  const url = `/api/v1/apps/${owner.app.id}/usage`;
  assertError(t, await app.inject({ method: 'GET', url }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'GET', url, headers: bearer(owner.secret) }), 'INVALID_SESSION');
  t.equal((await app.inject({ method: 'GET', url, cookies: { wp_session: owner.user.token } })).statusCode, 200);
});
