import { assertError, bearer, deleteRedisKeys, waitFor } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// Audiences and scheduled sends end to end: API → PostgreSQL → scheduler/BullMQ → worker →
// stand-in push service. Chunks of two, so segments span several keyset pages; a fast scheduler.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '2', SCHEDULER_INTERVAL_MS: '200' });
const { app, config, push } = harness;
const sql = harness.database.sql;
const messagesTo = (subscriptionId: string) => push.received.filter((m) => m.subscriptionId === subscriptionId);

/** `count` stand-in browsers subscribed through the API with a uid and/or tags (the key is `notify`: no signature). */
async function subscribeWith(owner: Owner, count: number, audience: { uid?: string; tags?: Record<string, string> }) {
  const browsers = [];
  for (let i = 0; i < count; i++) {
    const subscription = push.subscribe();
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: bearer(owner.secret),
      payload: { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth, ...audience },
    });
    if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
    browsers.push(subscription);
  }
  return browsers;
}

const ids = (browsers: { id: string }[]) => browsers.map((b) => b.id).sort();
const receivedSince = (before: number) => push.received.slice(before).map((m) => m.subscriptionId);

t.test('a scheduled send whose Redis data was wiped still starts: PostgreSQL is the record', async (t) => {
  const owner = await harness.owner();
  const browsers = await subscribeWith(owner, 2, { uid: 'wiped' });
  // No worker runs yet: every process is down when it falls due, and Redis has lost everything.
  const accepted = await harness.notify(owner, {
    title: 'Wiped',
    body: 'still',
    uids: ['wiped'],
    sendAt: scheduleIn(500),
  });
  await deleteRedisKeys(config.redisUrl, config.redisKeyPrefix);
  const isDue = async () => {
    const [row] = await sql<
      { due: boolean }[]
    >`select send_at <= now() as due from notifications where id = ${accepted.id}`;
    return row?.due === true;
  };
  await waitFor(isDue, 'the send fell due while no worker ran');
  await harness.startInProcessWorker();
  t.match(await harness.finished(owner, accepted.id), { status: 'completed', targets: 2, sent: 2 });
  for (const browser of browsers) t.equal(messagesTo(browser.id).length, 1);
});

t.test('uids reach exactly the browsers of those uids, several per uid', async (t) => {
  const owner = await harness.owner();
  const alice = await subscribeWith(owner, 3, { uid: 'alice' });
  const bob = await subscribeWith(owner, 2, { uid: 'bob' });
  const carol = await subscribeWith(owner, 2, { uid: 'carol' });
  const anonymous = await subscribeWith(owner, 2, {});
  const [lapsed] = await subscribeWith(owner, 1, { uid: 'alice' });
  await sql`update subscriptions set status = 'expired' where endpoint = ${lapsed?.endpoint ?? ''}`;
  const before = push.received.length;

  const { id, targets } = await harness.notify(owner, { title: 'Hi', body: 'you two', uids: ['alice', 'bob'] });
  t.equal(targets, 5);
  t.match(await harness.finished(owner, id), { status: 'completed', targets: 5, sent: 5, failed: 0, expired: 0 });
  const reached = receivedSince(before);
  t.strictSame([...reached].sort(), ids([...alice, ...bob]), 'each of their browsers exactly once');
  for (const other of [...carol, ...anonymous]) t.equal(messagesTo(other.id).length, 0, 'nobody else');
});

t.test('tags reach exactly the subscriptions containing every given pair', async (t) => {
  const owner = await harness.owner();
  const jaPro = await subscribeWith(owner, 3, { tags: { lang: 'ja', plan: 'pro', extra: '1' } });
  const jaFree = await subscribeWith(owner, 2, { tags: { lang: 'ja', plan: 'free' } });
  const enPro = await subscribeWith(owner, 2, { tags: { lang: 'en', plan: 'pro' } });
  const before = push.received.length;

  const pair = await harness.notify(owner, { title: 'Pro', body: 'ja', tags: { lang: 'ja', plan: 'pro' } });
  t.equal(pair.targets, 3);
  t.match(await harness.finished(owner, pair.id), { status: 'completed', sent: 3 });
  t.strictSame([...receivedSince(before)].sort(), ids(jaPro));

  const middle = push.received.length;
  const ja = await harness.notify(owner, { title: 'All ja', body: 'yes', tags: { lang: 'ja' } });
  t.equal(ja.targets, 5);
  t.match(await harness.finished(owner, ja.id), { status: 'completed', sent: 5 });
  t.strictSame([...receivedSince(middle)].sort(), ids([...jaPro, ...jaFree]));
  for (const other of enPro) t.equal(messagesTo(other.id).length, 0);
});

const scheduleIn = (ms: number) => new Date(Date.now() + ms).toISOString();

t.test('a scheduled send starts on time, with the audience resolved at start', async (t) => {
  const owner = await harness.owner();
  const early = await subscribeWith(owner, 2, { tags: { group: 'g' } });
  const sendAt = scheduleIn(2_000);
  const accepted = await harness.notify(owner, { title: 'Later', body: 'on time', tags: { group: 'g' }, sendAt });
  t.equal(accepted.targets, 0, 'targets are resolved at start');
  t.equal((await harness.status(owner, accepted.id)).status, 'scheduled');
  const late = await subscribeWith(owner, 1, { tags: { group: 'g' } });
  const before = push.received.length;

  const done = await harness.finished(owner, accepted.id, 20_000);
  t.match(done, { status: 'completed', targets: 3, sent: 3 });
  const [row] = await sql`select send_at, started_at from notifications where id = ${accepted.id}`;
  const delay = new Date(String(row?.started_at)).getTime() - new Date(sendAt).getTime();
  t.ok(delay >= 0, `not before sendAt (${delay} ms)`);
  t.ok(delay < 5_000, `within 5 s of sendAt (${delay} ms)`);
  t.strictSame([...receivedSince(before)].sort(), ids([...early, ...late]), 'a subscriber of after the accept too');
});

t.test('cancel works while scheduled and is 409 once started', async (t) => {
  const owner = await harness.owner();
  const browsers = await subscribeWith(owner, 1, { uid: 'x' });
  const canceled = await harness.notify(owner, {
    title: 'Never',
    body: 'sent',
    uids: ['x'],
    sendAt: scheduleIn(1_000),
  });
  const started = await harness.notify(owner, { title: 'Sent', body: 'once', uids: ['x'], sendAt: scheduleIn(1_000) });
  const del = (id: string) =>
    app.inject({ method: 'DELETE', url: `/api/v1/notifications/${id}`, headers: bearer(owner.secret) });
  const response = await del(canceled.id);
  t.equal(response.statusCode, 200);
  t.match(response.json(), { notification: { id: canceled.id, status: 'canceled' } });

  t.match(await harness.finished(owner, started.id), { status: 'completed', sent: 1 });
  assertError(t, await del(started.id), 'NOT_CANCELABLE');
  // The scheduler starts due sends oldest first: once a send due after the canceled one has run,
  // the scheduler has been past the canceled one's due time.
  await subscribeWith(owner, 1, { uid: 'marker' });
  const marker = await harness.notify(owner, {
    title: 'Marker',
    body: 'later',
    uids: ['marker'],
    sendAt: scheduleIn(300),
  });
  t.match(await harness.finished(owner, marker.id), { status: 'completed', sent: 1 });
  t.equal((await harness.status(owner, canceled.id)).status, 'canceled', 'a canceled send never starts');
  t.equal(messagesTo(browsers[0]?.id ?? '').length, 1, 'only the other one was delivered');
});

t.test('the monthly limit is checked at start: failed with MONTHLY_LIMIT_EXCEEDED, nothing sent', async (t) => {
  const owner = await harness.owner();
  const browsers = await subscribeWith(owner, 2, { tags: { t: 'limit' } });
  const userId = owner.user.user.id;
  await sql`update users set plan = 'free' where id = ${userId}`;
  const accepted = await harness.notify(owner, {
    title: 'Over',
    body: 'limit',
    tags: { t: 'limit' },
    sendAt: scheduleIn(800),
  });
  // The month fills up between the accept and the start.
  await sql`insert into monthly_usage (user_id, month, sends)
    values (${userId}, date_trunc('month', now() at time zone 'UTC')::date, 29999)
    on conflict (user_id, month) do update set sends = excluded.sends`;

  const done = await harness.finished(owner, accepted.id);
  t.match(done, { status: 'failed', targets: 0, sent: 0, errorCode: 'MONTHLY_LIMIT_EXCEEDED' });
  const [usage] = await sql`select sends::int as sends from monthly_usage where user_id = ${userId}`;
  t.equal(usage?.sends, 29_999, 'nothing reserved');
  for (const browser of browsers) t.equal(messagesTo(browser.id).length, 0, 'nothing sent');
});

t.test('two workers never start a scheduled send twice', async (t) => {
  const owner = await harness.owner();
  const browsers = await subscribeWith(owner, 3, { tags: { twice: 'no' } });
  const second = await harness.startInProcessWorker();
  const third = await harness.startInProcessWorker();
  const accepted = [];
  for (let i = 0; i < 12; i++) {
    accepted.push(
      await harness.notify(owner, {
        title: `Once ${i}`,
        body: 'only',
        tags: { twice: 'no' },
        sendAt: scheduleIn(1_500),
      }),
    );
  }
  // Both claim at the same moment, on top of their timers.
  await sql`update notifications set send_at = now() where id = any(${accepted.map((a) => a.id)})`;
  const passes = await Promise.all([second.scheduler.runOnce(), third.scheduler.runOnce()]);
  const started = passes.flat().map((send) => send.id);
  t.equal(new Set(started).size, started.length, 'no send started by both');

  for (const { id } of accepted)
    t.match(await harness.finished(owner, id), { status: 'completed', targets: 3, sent: 3 });
  for (const browser of browsers) {
    const titles = messagesTo(browser.id).map((m) => (JSON.parse(m.payload) as { title: string }).title);
    t.equal(titles.length, 12, 'each send reached each browser once');
    t.equal(new Set(titles).size, 12);
  }
  const [usage] = await sql`select sends::int as sends from monthly_usage where user_id = ${owner.user.user.id}`;
  t.equal(usage?.sends, 36, 'reserved once per send');
});
