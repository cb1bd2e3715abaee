import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, ownerWithKey, planDelivery, subscribe } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000000', EVENTS_FLUSH_INTERVAL_MS: '600000' });
const { app } = ctx;
const sql = ctx.database.sql;

/** An owner with a notify key (to send), a browser key (to report events) and two subscribers. */
async function ownerWithSubscribers() {
  const owner = await ownerWithKey(app, 'notify');
  const browser = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/keys`,
    headers: bearer(owner.user.token),
    payload: { scope: 'subscribe_only' },
  });
  const browserSecret = browser.json<{ secret: string }>().secret;
  const first = await subscribe(app, browserSecret);
  const second = await subscribe(app, browserSecret);
  return { ...owner, browserSecret, endpoints: [first.endpoint, second.endpoint] as const };
}

type Owner = Awaited<ReturnType<typeof ownerWithSubscribers>>;

/** A send to every subscriber; `pushed: false` leaves it unplanned, so it went to nobody yet. */
async function send(owner: Owner, { pushed = true } = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'T', body: 'B' },
  });
  if (response.statusCode !== 202) throw new Error(`notify: ${response.statusCode} ${response.body}`);
  const { id } = response.json<{ notification: { id: string } }>().notification;
  if (pushed) await planDelivery(ctx.database, id);
  return id;
}

const report = (secret: string, payload: object) =>
  app.inject({ method: 'POST', url: '/api/v1/events', headers: bearer(secret), payload });

async function conversions(owner: Owner, id: string) {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}`,
    headers: bearer(owner.secret),
  });
  const { converted, conversionValue, clicked } = response.json<{
    notification: { converted: number; conversionValue: number; clicked: number };
  }>().notification;
  return { converted, conversionValue, clicked };
}

const a = await ownerWithSubscribers();
const b = await ownerWithSubscribers();

t.test('a conversion counts once per subscription, and the values of the counted ones are summed', async (t) => {
  const id = await send(a);
  t.strictSame(await conversions(a, id), { converted: 0, conversionValue: 0, clicked: 0 }, 'zero at first');
  const [first, second] = a.endpoints;
  const answers = [
    await report(a.browserSecret, { notificationId: id, endpoint: first, type: 'converted', value: 19.99 }),
    // The same subscription again in the same batch, with another value: the first one counts.
    await report(a.browserSecret, { notificationId: id, endpoint: first, type: 'converted', value: 500 }),
    await report(a.browserSecret, { notificationId: id, endpoint: second, type: 'converted', value: 0.02 }),
  ];
  t.strictSame(
    answers.map((answer) => [answer.statusCode, answer.json()]),
    [
      [202, {}],
      [202, {}],
      [202, {}],
    ],
  );
  t.equal((await app.engagement.flush()).counted, 2, 'one conversion per subscription');
  t.strictSame(await conversions(a, id), { converted: 2, conversionValue: 20.01, clicked: 0 }, 'an exact sum');

  // Reported again in a later flush: nothing changes.
  await report(a.browserSecret, { notificationId: id, endpoint: second, type: 'converted', value: 7 });
  t.equal((await app.engagement.flush()).counted, 0);
  t.strictSame(await conversions(a, id), { converted: 2, conversionValue: 20.01, clicked: 0 });

  const rows = await sql`select value::text from notification_events
    where notification_id = ${id} and type = 'converted' order by value`;
  t.strictSame(
    rows.map((row) => row.value),
    ['0.02', '19.99'],
    'each counted conversion keeps its value',
  );
  const list = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${a.app.id}/notifications`,
    headers: bearer(a.user.token),
  });
  t.match(list.json(), { notifications: [{ id, converted: 2, conversionValue: 20.01 }] }, 'the session list too');
});

t.test('a conversion without a value counts with none; a value on another type is ignored', async (t) => {
  const id = await send(a);
  const [first, second] = a.endpoints;
  t.equal((await report(a.browserSecret, { notificationId: id, endpoint: first, type: 'converted' })).statusCode, 202);
  const click = { notificationId: id, endpoint: second, type: 'clicked', value: 10 };
  t.equal((await report(a.browserSecret, click)).statusCode, 202);
  t.equal((await app.engagement.flush()).counted, 2);
  t.strictSame(await conversions(a, id), { converted: 1, conversionValue: 0, clicked: 1 });
});

t.test('only a subscription the notification was pushed to can convert; another app counts nothing', async (t) => {
  const notPushed = await send(a, { pushed: false });
  const ofB = await send(b);
  const cases = [
    { name: 'a notification not pushed yet', notificationId: notPushed, endpoint: a.endpoints[0] },
    { name: "another app's notification", notificationId: ofB, endpoint: a.endpoints[0] },
    { name: "another app's subscriber", notificationId: ofB, endpoint: b.endpoints[0] },
  ];
  for (const { name, notificationId, endpoint } of cases) {
    const response = await report(a.browserSecret, { notificationId, endpoint, type: 'converted', value: 5 });
    t.equal(response.statusCode, 202, name);
    t.strictSame(response.json(), {}, `${name}: the same answer`);
  }
  t.equal((await app.engagement.flush()).counted, 0, 'nothing counted');
  t.strictSame(await conversions(a, notPushed), { converted: 0, conversionValue: 0, clicked: 0 });
  t.strictSame(await conversions(b, ofB), { converted: 0, conversionValue: 0, clicked: 0 });
});

t.test('a value out of range or not a number is INVALID_INPUT, and nothing is buffered', async (t) => {
  const id = await send(a);
  const event = { notificationId: id, endpoint: a.endpoints[0], type: 'converted' };
  const buffered = await app.coordination.engagement.length();
  for (const value of [-1, -0.01, 1_000_000_000.01, '12', 'abc', null, true, [3], { amount: 3 }]) {
    assertError(t, await report(a.browserSecret, { ...event, value }), 'INVALID_INPUT');
  }
  t.equal(await app.coordination.engagement.length(), buffered, 'no event buffered');
  t.equal((await app.engagement.flush()).counted, 0);
  t.equal(
    (await report(a.browserSecret, { ...event, value: 1_000_000_000 })).statusCode,
    202,
    'the maximum is allowed',
  );
  t.equal((await app.engagement.flush()).counted, 1);
  t.strictSame(await conversions(a, id), { converted: 1, conversionValue: 1_000_000_000, clicked: 0 });
});
