import { bearer, waitFor } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// A/B tests end to end (docs/engagement.md): the split, the sample and its winner, the per-variant
// counts, the per-day history and the per-notification report.
const harness = await deliveryHarness(t, {
  DELIVERY_CHUNK_SIZE: '4',
  PUSH_CONCURRENCY: '2',
  EVENTS_FLUSH_INTERVAL_MS: '600000',
  SCHEDULER_INTERVAL_MS: '4000',
});
const { app, push } = harness;
const sql = harness.database.sql;
const worker = await harness.startInProcessWorker();

const payloads = (subscriptions: readonly { id: string }[]) =>
  subscriptions.map((subscription) =>
    push.received.filter((message) => message.subscriptionId === subscription.id).map((m) => JSON.parse(m.payload)),
  );

async function browserKey(owner: Owner) {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/keys`,
    headers: bearer(owner.user.token),
    payload: { scope: 'subscribe_only' },
  });
  return response.json<{ secret: string }>().secret;
}

async function click(secret: string, notificationId: string, endpoint: string) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/events',
    headers: bearer(secret),
    payload: { notificationId, endpoint, type: 'clicked' },
  });
  if (response.statusCode !== 202) throw new Error(`events: ${response.statusCode} ${response.body}`);
}

const notification = async (owner: Owner, id: string) =>
  (await app.inject({ method: 'GET', url: `/api/v1/notifications/${id}`, headers: bearer(owner.secret) })).json<{
    notification: Record<string, unknown> & { variants?: Record<string, unknown>[]; winner: string | null };
  }>().notification;

t.test('variants without a sample: each target gets one letter, the groups are even, counts per variant', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 6);
  const { id, targets } = await harness.notify(owner, {
    title: 'Sale',
    body: 'Today only',
    url: 'https://shop.example/a',
    variants: [{ title: 'Last day', url: 'https://shop.example/b' }],
  });
  t.equal(targets, 6);
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 6 });
  const received = payloads(subscriptions);
  t.ok(
    received.every((messages) => messages.length === 1),
    'exactly one push each',
  );
  const letters = received.map(([message]) => message.variant as string);
  t.equal(letters.filter((letter) => letter === 'A').length, 3, 'half get A');
  t.equal(letters.filter((letter) => letter === 'B').length, 3, 'half get B');
  for (const [message] of received) {
    if (message.variant === 'A')
      t.match(message, { title: 'Sale', body: 'Today only', url: 'https://shop.example/a', id });
    else t.match(message, { title: 'Last day', body: 'Today only', url: 'https://shop.example/b', id });
  }

  const secret = await browserKey(owner);
  const clicked = subscriptions[letters.indexOf('B')] as { endpoint: string };
  await click(secret, id, clicked.endpoint);
  await app.engagement.flush();
  const shown = await notification(owner, id);
  t.match(shown.variants, [
    { name: 'A', sent: 3, failed: 0, expired: 0, shown: 0, clicked: 0, converted: 0, title: 'Sale' },
    { name: 'B', sent: 3, failed: 0, expired: 0, shown: 0, clicked: 1, converted: 0, title: 'Last day' },
  ]);
  t.equal(shown.winner, null, 'no sample: no winner');

  const report = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}/report`,
    headers: bearer(owner.user.token),
  });
  t.equal(report.statusCode, 200);
  t.match(report.headers['content-type'], /^text\/csv; charset=utf-8/);
  const lines = report.body.trimEnd().split('\r\n');
  t.equal(lines[0], 'subscriptionId,uid,variant,outcome,failureReason,shown,clicked,actions,converted,conversionValue');
  t.equal(lines.length, 7, 'one row per target');
  const rows = new Map(lines.slice(1).map((line) => [line.split(',')[0], line.split(',')]));
  subscriptions.forEach((subscription, index) => {
    const row = rows.get(subscription.subscriberId);
    t.equal(row?.[2], letters[index], 'the variant it received');
    t.equal(row?.[3], 'sent');
    t.equal(row?.[6], subscription === clicked ? 'true' : 'false', 'clicked');
  });

  const keyReport = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}/report`,
    headers: bearer(owner.secret),
  });
  t.equal(keyReport.statusCode, 403, 'a notify key is not enough: full or a session');
  const stranger = await harness.owner();
  const other = await app.inject({
    method: 'GET',
    url: `/api/v1/notifications/${id}/report`,
    headers: bearer(stranger.user.token),
  });
  t.match(other.json(), { code: 'NOT_FOUND' });
  t.equal(other.statusCode, 404);

  const stats = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/stats?days=7`,
    headers: bearer(owner.user.token),
  });
  t.equal(stats.statusCode, 200);
  const { days } = stats.json<{ days: Record<string, number | string>[] }>();
  t.equal(days.length, 7);
  t.equal(days[6]?.date, new Date().toISOString().slice(0, 10), 'today last');
  t.match(days[6], { sent: 6, failed: 0, expired: 0, skipped: 0, shown: 0, clicked: 1, converted: 0, subscribed: 6 });
  t.match(days[0], { sent: 0, subscribed: 0 }, 'a day without anything is zeros');
});

t.test('a sample, then the winner one minute later goes to every other target', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 10);
  const { id, targets } = await harness.notify(owner, {
    title: 'Sale',
    body: 'Today only',
    variants: [{ title: 'Last day' }],
    sample: 0.2,
    winnerAfterMinutes: 1,
  });
  t.equal(targets, 10);
  await waitFor(() => push.received.filter((m) => JSON.parse(m.payload).id === id).length === 2, 'the sample of 2');
  const sampled = subscriptions.filter((s) => push.received.some((m) => m.subscriptionId === s.id));
  t.equal(sampled.length, 2, 'ceil(0.2 × 10) targets first');
  const letters = payloads(sampled).map(([message]) => message.variant as string);
  t.same([...letters].sort(), ['A', 'B'], 'the sample is split among the variants');
  await waitFor(async () => (await notification(owner, id)).sent === 2, 'the sample counted');
  const waiting = await notification(owner, id);
  t.match(waiting, { status: 'sending', sent: 2, winner: null });

  const [due] = await sql<{ minutes: number }[]>`
    select extract(epoch from winner_at - now()) / 60 as minutes from notifications where id = ${id}`;
  t.ok(Number(due?.minutes) > 0.9 && Number(due?.minutes) <= 1, 'the winner is due one minute after the sample');
  const winnerAt = Date.parse(String(waiting.winnerAt));
  t.ok(Math.abs(winnerAt - Date.now() - Number(due?.minutes) * 60_000) < 5_000, 'the notification says when');
  t.same(await worker.winners.runOnce(), [], 'not due yet: nothing chosen');

  const secret = await browserKey(owner);
  const clickedB = sampled[letters.indexOf('B')] as { endpoint: string };
  await click(secret, id, clickedB.endpoint);
  await app.engagement.flush();

  // The minute has passed (moved, so the test does not wait for it): the worker's due-check picks it.
  await sql`update notifications set winner_at = now() - interval '1 second' where id = ${id}`;
  t.match(await worker.winners.runOnce(), [{ id, winner: 'B' }]);
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', sent: 10, failed: 0, expired: 0 });
  const rest = subscriptions.filter((s) => !sampled.includes(s));
  for (const [message, ...more] of payloads(rest)) {
    t.match(message, { title: 'Last day', body: 'Today only', variant: 'B', id });
    t.equal(more.length, 0, 'one push each');
  }
  const finished = await notification(owner, id);
  t.equal(finished.winner, 'B');
  t.notOk('winnerAt' in finished, 'no due time once chosen');
  t.match(finished.variants, [
    { name: 'A', sent: 1, clicked: 0 },
    { name: 'B', sent: 9, clicked: 1 },
  ]);
  t.same(await worker.winners.runOnce(), [], 'chosen once');
});

t.test('refused before anything is queued', async (t) => {
  const owner = await harness.owner();
  await harness.subscribe(owner, 1);
  const cases: [string, object, number, string][] = [
    [
      'four variants',
      { variants: [{ title: 'b' }, { title: 'c' }, { title: 'd' }, { title: 'e' }] },
      400,
      'INVALID_INPUT',
    ],
    ['sample without winnerAfterMinutes', { variants: [{ title: 'b' }], sample: 0.1 }, 400, 'INVALID_INPUT'],
    ['winnerAfterMinutes without sample', { variants: [{ title: 'b' }], winnerAfterMinutes: 5 }, 400, 'INVALID_INPUT'],
    ['a sample too big', { variants: [{ title: 'b' }], sample: 0.6, winnerAfterMinutes: 5 }, 400, 'INVALID_INPUT'],
    ['a sample without variants', { sample: 0.1, winnerAfterMinutes: 5 }, 400, 'INVALID_INPUT'],
    [
      'variants with translations',
      { variants: [{ title: 'b' }], translations: { ja: { title: 'や' } } },
      400,
      'INVALID_INPUT',
    ],
    ['a variant over the bytes', { variants: [{ body: 'x'.repeat(3100) }] }, 413, 'PAYLOAD_TOO_LARGE'],
    ['no variants at all', { variants: [] }, 400, 'INVALID_INPUT'],
  ];
  for (const [what, fields, status, code] of cases) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/notify',
      headers: bearer(owner.secret),
      payload: { title: 'T', body: 'B', ...fields },
    });
    t.equal(response.statusCode, status, what);
    t.match(response.json(), { code }, what);
  }
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where app_id = ${owner.app.id}`;
  t.equal(row?.n, 0, 'nothing stored or queued');
  const stats = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/stats?days=91`,
    headers: bearer(owner.user.token),
  });
  t.equal(stats.statusCode, 400);
  t.match(stats.json(), { code: 'INVALID_INPUT' });
});
