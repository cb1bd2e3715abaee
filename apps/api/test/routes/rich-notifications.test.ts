import { richNotificationFields } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createKey, ownerWithKey, planDelivery, subscribe } from '../helper.js';

// docs/sending.md, "Pictures, buttons and behaviour", and docs/engagement.md, "Only engagement that was earned".
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000000', EVENTS_FLUSH_INTERVAL_MS: '600000' });
const { app } = ctx;
const sql = ctx.database.sql;

const owner = await ownerWithKey(app, 'full');
const browserKey = await createKey(app, owner.user.token, owner.app.id, 'subscribe_only');

const notify = (payload: object, url = '/api/v1/notify') =>
  app.inject({ method: 'POST', url, headers: bearer(owner.secret), payload });

const notificationCount = async () =>
  (await sql`select count(*)::int as n from notifications where app_id = ${owner.app.id}`)[0]?.n as number;

/** Plans the notification's delivery as the worker's fan-out does (the record of who it is pushed to). */
const fanOut = (id: string) => planDelivery(ctx.database, id);

const report = (payload: object) =>
  app.inject({ method: 'POST', url: '/api/v1/events', headers: bearer(browserKey.secret), payload });

async function notification(id: string) {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}`,
    headers: bearer(owner.secret),
  });
  return response.json<{
    notification: { shown: number; clicked: number; actionClicks: Record<string, number> } & Record<string, unknown>;
  }>().notification;
}

const rich = {
  title: 'Sale',
  body: 'Everything half price',
  url: 'https://shop.example/sale',
  image: 'https://shop.example/banner.png',
  ...richNotificationFields(),
  data: { campaign: 'autumn', n: 3 },
};

const subscriber = await subscribe(app, browserKey.secret);

t.test('every rich field is accepted on every sending route and stored with the notification', async (t) => {
  const sent = await notify(rich);
  t.equal(sent.statusCode, 202, sent.body);
  const { id } = sent.json<{ notification: { id: string } }>().notification;
  const [row] = await sql`select payload from notifications where id = ${id}`;
  t.strictSame(row?.payload, rich, 'stored as given');
  const shown = await notification(id);
  t.strictSame(shown.actionClicks, {}, 'actionClicks starts empty');
  t.equal(shown.image, rich.image);
  t.strictSame(shown.actions, rich.actions);

  const batch = await notify({ ...rich, endpoints: [subscriber.endpoint] }, '/api/v1/notify/batch');
  t.equal(batch.statusCode, 202, batch.body);
  const session = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/notifications`,
    headers: bearer(owner.user.token),
    payload: rich,
  });
  t.equal(session.statusCode, 202, session.body);
  const scheduled = await notify({ ...rich, sendAt: new Date(Date.now() + 3_600_000).toISOString() });
  t.equal(scheduled.statusCode, 202, scheduled.body);
  const scheduledId = scheduled.json<{ notification: { id: string } }>().notification.id;
  const [stored] = await sql`select payload from notifications where id = ${scheduledId}`;
  t.strictSame(stored?.payload, rich, 'a scheduled send keeps its rich fields for the worker');
});

t.test('the contract error codes of the rich fields', async (t) => {
  const base = { title: 'T', body: 'B' };
  const cases: [string, object, Parameters<typeof assertError>[2]][] = [
    ['image not https', { image: 'http://x.example/a.png' }, 'INVALID_URL'],
    ['three buttons', { actions: ['a', 'b', 'c'].map((action) => ({ action, title: action })) }, 'INVALID_INPUT'],
    [
      'duplicate action',
      {
        actions: [
          { action: 'a', title: 'A' },
          { action: 'a', title: 'B' },
        ],
      },
      'INVALID_INPUT',
    ],
    ['action with a space', { actions: [{ action: 'a b', title: 'A' }] }, 'INVALID_INPUT'],
    ['action of 65 characters', { actions: [{ action: 'a'.repeat(65), title: 'A' }] }, 'INVALID_INPUT'],
    ['button without title', { actions: [{ action: 'a' }] }, 'INVALID_INPUT'],
    ['button with an empty title', { actions: [{ action: 'a', title: '' }] }, 'INVALID_INPUT'],
    ['title of 65 characters', { actions: [{ action: 'a', title: 'x'.repeat(65) }] }, 'INVALID_INPUT'],
    ['button that is not an object', { actions: ['a'] }, 'INVALID_INPUT'],
    ['button url not https', { actions: [{ action: 'a', title: 'A', url: 'http://x.example/' }] }, 'INVALID_URL'],
    ['button icon not https', { actions: [{ action: 'a', title: 'A', icon: 'ftp://x.example/i' }] }, 'INVALID_URL'],
    ['renotify without tag', { renotify: true }, 'INVALID_INPUT'],
    ['empty tag', { tag: '' }, 'INVALID_INPUT'],
    ['tag of 65 characters', { tag: 'x'.repeat(65) }, 'INVALID_INPUT'],
    ['requireInteraction not a boolean', { requireInteraction: 'yes' }, 'INVALID_INPUT'],
    ['data not an object', { data: [1, 2] }, 'INVALID_INPUT'],
    ['data of 1,026 bytes', { data: { k: 'é'.repeat(509) } }, 'PAYLOAD_TOO_LARGE'],
  ];
  const before = await notificationCount();
  for (const [name, fields, code] of cases) {
    const response = await notify({ ...base, ...fields });
    t.equal(response.json<{ code: string }>().code, code, name);
    assertError(t, response, code);
  }
  t.equal(await notificationCount(), before, 'nothing was stored');
  t.equal((await notify({ ...base, renotify: false })).statusCode, 202, 'renotify false needs no tag');
  t.equal((await notify({ ...base, data: { k: 'é'.repeat(508) } })).statusCode, 202, 'data of exactly 1,024 bytes');
  assertError(
    t,
    await notify({ ...base, endpoints: [subscriber.endpoint], renotify: true }, '/api/v1/notify/batch'),
    'INVALID_INPUT',
  );
});

t.test('the whole browser payload is at most 3,993 bytes; over it, 413 and nothing queued', async (t) => {
  // The legacy payload: {"title":…,"body":…,"data":…,"id":"<uuid>"}. Build one of exactly 3,993 bytes.
  const data = { k: 'x'.repeat(1_000) };
  const fixed = JSON.stringify({ title: '', body: '', data, id: crypto.randomUUID() }).length;
  const room = 3_993 - fixed;
  const titleBytes = 2_000;
  const fits = { title: 't'.repeat(titleBytes), body: 'b'.repeat(room - titleBytes), data };
  t.ok(JSON.stringify({ title: fits.title, body: fits.body }).length <= 3_072, 'within the 3,072-byte rule on its own');
  const before = await notificationCount();
  const accepted = await notify(fits);
  t.equal(accepted.statusCode, 202, 'exactly 3,993 bytes is accepted');
  const over = await notify({ ...fits, body: `${fits.body}b` });
  assertError(t, over, 'PAYLOAD_TOO_LARGE');
  t.equal(await notificationCount(), before + 1, 'the 3,994-byte send was not stored');
  const [queued] = await sql`select count(*)::int as n from notifications where app_id = ${owner.app.id}
    and status = 'queued' and length(payload->>'body') = ${fits.body.length + 1}`;
  t.equal(queued?.n, 0);
});

t.test('button clicks: actionClicks once per subscription and action; clicked once whatever was clicked', async (t) => {
  const second = await subscribe(app, browserKey.secret);
  const sent = await notify(rich);
  const { id } = sent.json<{ notification: { id: string } }>().notification;
  await fanOut(id);
  const clicks = [
    { endpoint: subscriber.endpoint, action: 'buy' },
    { endpoint: subscriber.endpoint, action: 'buy' },
    { endpoint: subscriber.endpoint, action: 'later' },
    { endpoint: subscriber.endpoint },
    { endpoint: second.endpoint, action: 'buy' },
    { endpoint: second.endpoint, action: 'not-a-button' },
  ];
  for (const click of clicks) {
    const response = await report({ notificationId: id, type: 'clicked', ...click });
    t.equal(response.statusCode, 202);
  }
  await app.engagement.flush();
  // Another flush later with the same and a new click.
  await report({ notificationId: id, type: 'clicked', endpoint: second.endpoint, action: 'buy' });
  await report({ notificationId: id, type: 'clicked', endpoint: second.endpoint, action: 'later' });
  await report({ notificationId: id, type: 'shown', endpoint: second.endpoint, action: 'later' });
  await app.engagement.flush();
  const counted = await notification(id);
  t.equal(counted.clicked, 2, 'each subscription clicked once');
  t.equal(counted.shown, 1);
  t.strictSame(counted.actionClicks, { buy: 2, later: 2 }, 'an action the notification does not have counts nothing');

  assertError(
    t,
    await report({ notificationId: id, type: 'clicked', endpoint: second.endpoint, action: 'a b' }),
    'INVALID_INPUT',
  );
});

t.test('engagement counts only for subscriptions the notification was pushed to', async (t) => {
  // A send to one endpoint: the other subscriber is outside its audience.
  const outside = await subscribe(app, browserKey.secret);
  const sent = await notify({ ...rich, endpoint: subscriber.endpoint });
  const { id } = sent.json<{ notification: { id: string } }>().notification;
  await fanOut(id);
  const late = await subscribe(app, browserKey.secret);
  for (const endpoint of [outside.endpoint, late.endpoint]) {
    for (const event of [{ type: 'shown' }, { type: 'clicked' }, { type: 'clicked', action: 'buy' }]) {
      const response = await report({ notificationId: id, endpoint, ...event });
      t.equal(response.statusCode, 202, 'still 202');
    }
  }
  await app.engagement.flush();
  t.match(await notification(id), { shown: 0, clicked: 0, actionClicks: {} }, 'nothing counted');

  // A send to everyone: a subscriber made after the send counts nothing, one made before counts.
  const everyone = await notify({ title: 'All', body: 'B' });
  const allId = everyone.json<{ notification: { id: string } }>().notification.id;
  await fanOut(allId);
  const after = await subscribe(app, browserKey.secret);
  await report({ notificationId: allId, endpoint: after.endpoint, type: 'shown' });
  await report({ notificationId: allId, endpoint: outside.endpoint, type: 'shown' });
  await app.engagement.flush();
  t.match(await notification(allId), { shown: 1, clicked: 0 }, 'only the subscriber it was pushed to');

  // Before the fan-out planned anything, nothing was pushed: nothing counts.
  const unplanned = (await notify({ title: 'Later', body: 'B' })).json<{ notification: { id: string } }>().notification
    .id;
  await report({ notificationId: unplanned, endpoint: subscriber.endpoint, type: 'shown' });
  await app.engagement.flush();
  t.match(await notification(unplanned), { shown: 0 });
});
