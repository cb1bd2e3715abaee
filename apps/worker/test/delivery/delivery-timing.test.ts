import { bearer, waitFor, waitForValue } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// Local-time delivery, throttling and frequency caps (docs/sending.md), end to end: the API
// accepts, the worker starts, plans and pushes to the stand-in push service, which notes when each
// push arrived.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '50', SCHEDULER_INTERVAL_MS: '250' });
const { app, push, database } = harness;
await harness.startInProcessWorker();

async function subscribe(owner: Owner, fields: Record<string, unknown> = {}) {
  const subscription = push.subscribe();
  const { endpoint, p256dh, auth } = subscription;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint, p256dh, auth, ...fields },
  });
  if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
  return subscription;
}

const arrivals = (subscription: { id: string }) =>
  push.received.filter((message) => message.subscriptionId === subscription.id).map((message) => message.at);

const tokyoClock = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Asia/Tokyo',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

t.test('localTime: a Tokyo subscriber gets it in the minute asked, not before', async (t) => {
  const owner = await harness.owner();
  const tokyo = await subscribe(owner, { timeZone: 'Asia/Tokyo' });
  // Another zone, whose 09:00-style minute is hours away: planned as a group of its own.
  const honolulu = await subscribe(owner, { timeZone: 'Pacific/Honolulu' });
  const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000;
  const localTime = tokyoClock.format(minute);

  const accepted = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'Good morning', body: 'Tokyo', localTime },
  });
  t.equal(accepted.statusCode, 202);
  const { notification } = accepted.json() as { notification: { id: string; status: string; targets: number } };
  t.match(notification, { status: 'scheduled', targets: 2 }, 'targets settled at acceptance');
  const groups = await database.sql<{ zones: string[]; due_at: Date }[]>`
    select zones, due_at from notification_local_groups where notification_id = ${notification.id} order by due_at`;
  t.equal(groups.length, 2, 'one group per distinct instant');
  t.strictSame(groups[0]?.zones, ['Asia/Tokyo']);
  t.equal(new Date(groups[0]?.due_at as Date).getTime(), minute, 'due at the start of that minute');

  await waitFor(() => arrivals(tokyo).length === 1, 'the Tokyo subscriber receives it', { timeoutMs: 120_000 });
  const [at] = arrivals(tokyo);
  t.ok((at as number) >= minute, `pushed at ${new Date(at as number).toISOString()}, not before ${localTime} Tokyo`);
  t.equal(tokyoClock.format(at as number), localTime, 'in the minute asked');
  t.strictSame(arrivals(honolulu), [], 'the other zone waits for its own time');
  // The push's answer is counted when its chunk's outcome is written, just after it arrived.
  const status = await waitForValue(
    () => harness.status(owner, notification.id),
    (current) => current.sent === 1,
    'the Tokyo push is counted',
  );
  t.match(status, { status: 'sending', targets: 2, sent: 1 }, 'sending from the first push until the last');
});

t.test('localTime: the shape and its companions are checked', async (t) => {
  const owner = await harness.owner();
  for (const payload of [
    { title: 'x', body: 'y', localTime: '09:00', sendAt: new Date(Date.now() + 60_000).toISOString() },
    { title: 'x', body: 'y', localTime: '24:00' },
    { title: 'x', body: 'y', localTime: '9:00' },
    { title: 'x', body: 'y', throttle: { perMinute: 9 } },
    { title: 'x', body: 'y', throttle: { perMinute: 1_000_001 } },
    { title: 'x', body: 'y', throttle: { perMinute: 10.5 } },
  ]) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/notify',
      headers: bearer(owner.secret),
      payload,
    });
    t.equal(response.statusCode, 400, JSON.stringify(payload));
    t.equal(response.json().code, 'INVALID_INPUT');
  }
});

t.test('throttle: the plan spreads the pushes over minutes, at most perMinute in any minute', async (t) => {
  const owner = await harness.owner();
  await harness.insertSubscriptions(owner, 25);
  const { id, targets } = await harness.notify(owner, { title: 'Slowly', body: 'please', throttle: { perMinute: 10 } });
  t.equal(targets, 25);
  await waitFor(
    async () =>
      (await database.sql`select 1 from notifications where id = ${id} and fanned_out_at is not null`).length === 1,
    'the send is planned',
  );
  const chunks = await database.sql<{ size: number; offset_ms: number }[]>`
    select cardinality(c.subscription_ids) as size,
      extract(epoch from c.not_before - n.created_at) * 1000 as offset_ms
    from notification_chunks c join notifications n on n.id = c.notification_id
    where c.notification_id = ${id} and c.attempt = 1 order by c.not_before`;
  t.equal(
    chunks.reduce((sum, chunk) => sum + chunk.size, 0),
    25,
  );
  t.ok(Math.max(...chunks.map((chunk) => chunk.size)) === 1, 'a chunk holds a second’s worth (at least one)');
  const offsets = chunks.map((chunk) => Number(chunk.offset_ms));
  t.ok((offsets[offsets.length - 1] as number) >= 144_000, 'the last of 25 goes out 2 min 24 s after the start');
  for (const start of offsets) {
    const inMinute = offsets.filter((offset) => offset >= start && offset < start + 60_000).length;
    t.ok(inMinute <= 10, `at most 10 in the minute from +${Math.round(start)} ms`);
  }
  await database.sql`update notifications set status = 'canceled' where id = ${id}`;
});

t.test('throttle: pushes really go out spaced (perMinute 20: one every 3 s)', async (t) => {
  const owner = await harness.owner();
  const subscriptions = [await subscribe(owner), await subscribe(owner), await subscribe(owner)];
  const { id } = await harness.notify(owner, { title: 'Spaced', body: 'out', throttle: { perMinute: 20 } });
  t.match(await harness.finished(owner, id, 60_000), { status: 'completed', sent: 3 });
  const times = subscriptions.flatMap(arrivals).sort((a, b) => a - b);
  t.equal(times.length, 3);
  // Push k may not start before the first plus (k − 1) × 3 s (a late one does not move the next).
  const first = times[0] as number;
  for (let i = 1; i < times.length; i++) {
    t.ok((times[i] as number) - first >= i * 3_000 - 500, `push ${i + 1} came ≥ ${i * 3} s after the first`);
  }
});

t.test('frequency cap: a capped send skips and counts; test notifications ignore the cap', async (t) => {
  const owner = await harness.owner();
  const patched = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: { frequencyCap: { max: 1, hours: 24 } },
  });
  t.equal(patched.statusCode, 200);
  const first = await subscribe(owner);
  const second = await subscribe(owner);

  const one = await harness.notify(owner, { title: 'One', body: 'first' });
  t.match(await harness.finished(owner, one.id), { status: 'completed', targets: 2, sent: 2, skipped: 0 });

  const third = await subscribe(owner);
  const two = await harness.notify(owner, { title: 'Two', body: 'second' });
  const finished = await harness.finished(owner, two.id);
  t.match(finished, { status: 'completed', targets: 3, sent: 1, failed: 0, expired: 0, skipped: 2 });
  t.equal(arrivals(first).length, 1, 'the capped subscriptions got the first only');
  t.equal(arrivals(second).length, 1);
  t.equal(arrivals(third).length, 1, 'the new subscription was under the cap');

  const test = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/test-notification`,
    headers: bearer(owner.user.token),
    payload: { subscription: { endpoint: first.endpoint, p256dh: first.p256dh, auth: first.auth } },
  });
  t.equal(test.statusCode, 200, 'a test notification is not held back');
  t.equal(arrivals(first).length, 2);
});
