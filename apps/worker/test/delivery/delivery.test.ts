import { legacyPayload } from '@webpush/push';
import { assertError, bearer } from '@webpush/testing';
import t from 'tap';
import type { RunningWorker } from '../../src/worker.js';
import { deliveryHarness, unknownToPushService } from '../helper.js';

// The whole pipeline in one process: API → PostgreSQL → BullMQ → worker → stand-in push service.
// Chunks of two subscriptions, so even small sends span several chunks.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '2' });
const { app, push } = harness;
const sql = harness.database.sql;

const subscriptionStatus = async (endpoint: string) =>
  (await sql`select status from subscriptions where endpoint = ${endpoint}`)[0]?.status as string | undefined;
let worker: RunningWorker | undefined;
const messagesTo = (subscriptionId: string) => push.received.filter((m) => m.subscriptionId === subscriptionId);

t.test('targets that expire or are removed before delivery count as expired, not sent', async (t) => {
  // No worker runs yet: the notification waits in the queue while its targets change.
  const owner = await harness.owner();
  const [kept, removed, expired] = await harness.subscribe(owner, 3);
  if (!kept || !removed || !expired) throw new Error('subscriptions missing');
  const { id, targets } = await harness.notify(owner, { title: 'Later', body: 'Maybe' });
  t.equal(targets, 3);
  const unsubscribe = await app.inject({
    method: 'DELETE',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: removed.endpoint },
  });
  t.equal(unsubscribe.statusCode, 204);
  await sql`update subscriptions set status = 'expired', expired_at = now() where endpoint = ${expired.endpoint}`;

  worker = await harness.startInProcessWorker();
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', targets: 3, sent: 1, failed: 0, expired: 2 });
  t.equal(messagesTo(kept.id).length, 1);
  t.equal(messagesTo(removed.id).length + messagesTo(expired.id).length, 0, 'nothing sent to them');
});

t.test('a notification to every subscriber: each one decrypts exactly the payload sent', async (t) => {
  const owner = await harness.owner();
  const subscribers = await harness.subscribe(owner, 5);
  const [lapsed] = await harness.subscribe(owner, 1);
  if (!lapsed) throw new Error('subscription missing');
  await sql`update subscriptions set status = 'expired' where endpoint = ${lapsed.endpoint}`;
  const payload = {
    title: 'Grüße 👋',
    body: 'Line one\n"quoted" — ünïcödé',
    url: 'https://example.com/article?id=1&x=2',
    icon: 'https://example.com/icon.png',
    badge: 'https://example.com/badge.png',
  };

  const { id, targets } = await harness.notify(owner, { ...payload, ttl: 120, urgency: 'high', topic: 'breaking' });
  t.equal(targets, 5);
  const done = await harness.finished(owner, id);
  t.match(done, { id, status: 'completed', targets: 5, sent: 5, failed: 0, expired: 0 });
  t.type(done.completedAt, 'string');

  const expected = JSON.stringify({ ...payload, id });
  t.equal(legacyPayload(payload, id), expected, 'fields go out in the contract order, with the notification id');
  for (const subscriber of subscribers) {
    const messages = messagesTo(subscriber.id);
    t.equal(messages.length, 1, 'exactly one message per subscriber');
    t.equal(messages[0]?.payload, expected, 'decrypts to the payload');
    t.match(messages[0], { ttl: 120, urgency: 'high', topic: 'breaking', vapidPublicKey: owner.app.vapidPublicKey });
    t.equal(messages[0]?.claims.aud, push.origin);
  }
  t.equal(messagesTo(lapsed.id).length, 0, 'an expired subscription gets nothing');
  t.strictSame(push.protocolErrors, [], 'the stand-in found nothing wrong with any message');

  const chunks = await sql`select attempt, cardinality(subscription_ids) as size, sent, completed_at
    from notification_chunks where notification_id = ${id} order by first_subscription_id`;
  t.strictSame(
    chunks.map((chunk) => chunk.size),
    [2, 2, 1],
    'planned in keyset pages of DELIVERY_CHUNK_SIZE',
  );
  t.ok(chunks.every((chunk) => chunk.completed_at !== null && chunk.attempt === 1));
  const stats = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal((stats.json() as { app: { stats: { sendsThisMonth: number } } }).app.stats.sendsThisMonth, 5);
});

t.test('defaults: TTL 86400, Urgency normal, no Topic', async (t) => {
  const owner = await harness.owner();
  const [subscriber] = await harness.subscribe(owner, 1);
  if (!subscriber) throw new Error('subscription missing');
  const { id } = await harness.notify(owner, { title: 'T', body: 'B' });
  await harness.finished(owner, id);
  t.match(messagesTo(subscriber.id)[0], {
    payload: `{"title":"T","body":"B","id":"${id}"}`,
    ttl: 86_400,
    urgency: 'normal',
    topic: null,
  });
});

t.test('a notification to one endpoint reaches only that subscription', async (t) => {
  const owner = await harness.owner();
  const [target, bystander] = await harness.subscribe(owner, 2);
  if (!target || !bystander) throw new Error('subscriptions missing');
  const { id, targets } = await harness.notify(owner, { title: 'Just you', body: 'Hi', endpoint: target.endpoint });
  t.equal(targets, 1);
  t.match(await harness.finished(owner, id), { status: 'completed', targets: 1, sent: 1, failed: 0, expired: 0 });
  t.equal(messagesTo(target.id).length, 1);
  t.equal(messagesTo(bystander.id).length, 0);
});

t.test('a batch reaches its known endpoints and reports the unknown ones', async (t) => {
  const owner = await harness.owner();
  const [a, b, c] = await harness.subscribe(owner, 3);
  if (!a || !b || !c) throw new Error('subscriptions missing');
  const unknown = unknownToPushService(push).endpoint;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/notify/batch',
    headers: bearer(owner.secret),
    payload: { title: 'Batch', body: 'Two of three', endpoints: [a.endpoint, unknown, b.endpoint] },
  });
  t.equal(response.statusCode, 202);
  const body = response.json() as { notification: { id: string; targets: number }; unknownEndpoints: string[] };
  t.equal(body.notification.targets, 2);
  t.strictSame(body.unknownEndpoints, [unknown]);
  t.match(await harness.finished(owner, body.notification.id), { status: 'completed', sent: 2 });
  t.equal(messagesTo(a.id).length, 1);
  t.equal(messagesTo(b.id).length, 1);
  t.equal(messagesTo(c.id).length, 0);
});

t.test('404 and 410 expire the subscription; sending to it directly then answers 410', async (t) => {
  const owner = await harness.owner();
  const [gone, missing, fine] = await harness.subscribe(owner, 3);
  if (!gone || !missing || !fine) throw new Error('subscriptions missing');
  push.script(gone.id, { status: 410 });
  push.script(missing.id, { status: 404 });

  const { id } = await harness.notify(owner, { title: 'Still there?', body: '?' });
  t.match(await harness.finished(owner, id), { status: 'completed', targets: 3, sent: 1, failed: 0, expired: 2 });
  t.equal(messagesTo(gone.id).length, 1, 'not retried');
  t.equal(await subscriptionStatus(gone.endpoint), 'expired');
  t.equal(await subscriptionStatus(missing.endpoint), 'expired');
  t.equal(await subscriptionStatus(fine.endpoint), 'active');

  const direct = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'T', body: 'B', endpoint: gone.endpoint },
  });
  assertError(t, direct, 'SUBSCRIPTION_EXPIRED');
  const next = await harness.notify(owner, { title: 'Next', body: 'Only the living' });
  t.equal(next.targets, 1, 'expired subscriptions are no longer targets');
});

t.test('a notification where nothing could be delivered ends failed', async (t) => {
  const owner = await harness.owner();
  const [only] = await harness.subscribe(owner, 1);
  if (!only) throw new Error('subscription missing');
  push.script(only.id, { status: 410 });
  const { id } = await harness.notify(owner, { title: 'T', body: 'B', endpoint: only.endpoint });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'failed', targets: 1, sent: 0, failed: 0, expired: 1 });
  t.type(done.completedAt, 'string');
});

t.test('429 is retried no earlier than its Retry-After', async (t) => {
  const owner = await harness.owner();
  const [busy] = await harness.subscribe(owner, 1);
  if (!busy) throw new Error('subscription missing');
  push.script(busy.id, { status: 429, retryAfter: '1' });
  const before = push.received.length;
  const { id } = await harness.notify(owner, { title: 'Patience', body: '1 s', endpoint: busy.endpoint });
  await push.waitForMessages(before + 1);
  const firstAt = Date.now();
  await push.waitForMessages(before + 2, 5_000);
  const waited = Date.now() - firstAt;
  t.ok(waited >= 950, `second attempt ${waited} ms after the 429 (backoff alone would be ~50 ms)`);
  t.strictSame(
    messagesTo(busy.id).map((m) => m.status),
    [429, 201],
  );
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 1, failed: 0, expired: 0 });
  const attempts =
    await sql`select attempt, sent, failed from notification_chunks where notification_id = ${id} order by attempt`;
  t.strictSame(
    attempts.map((row) => [row.attempt, row.sent, row.failed]),
    [
      [1, 0, 0],
      [2, 1, 0],
    ],
    'the retry is a chunk of its own',
  );
});

t.test('5xx is retried with backoff until delivered', async (t) => {
  const owner = await harness.owner();
  const [flaky, steady] = await harness.subscribe(owner, 2);
  if (!flaky || !steady) throw new Error('subscriptions missing');
  push.script(flaky.id, { status: 500 }, { status: 503 });
  const { id } = await harness.notify(owner, { title: 'Again', body: 'And again' });
  t.match(await harness.finished(owner, id), { status: 'completed', targets: 2, sent: 2, failed: 0, expired: 0 });
  t.strictSame(
    messagesTo(flaky.id).map((m) => m.status),
    [500, 503, 201],
  );
  t.equal(messagesTo(steady.id).length, 1, 'the retry re-sends only what needs it');
});

t.test('a push service that keeps failing: PUSH_MAX_ATTEMPTS sends, then failed', async (t) => {
  const owner = await harness.owner();
  const [broken] = await harness.subscribe(owner, 1);
  if (!broken) throw new Error('subscription missing');
  push.script(broken.id, { status: 502, times: Number.POSITIVE_INFINITY });
  const { id } = await harness.notify(owner, { title: 'T', body: 'B', endpoint: broken.endpoint });
  t.match(await harness.finished(owner, id), { status: 'failed', sent: 0, failed: 1, expired: 0 });
  t.equal(messagesTo(broken.id).length, 5, 'five attempts (the default)');
  t.equal(await subscriptionStatus(broken.endpoint), 'active', 'a failing push service does not expire anyone');
});

t.test('other 4xx answers fail at once and are not retried', async (t) => {
  const owner = await harness.owner();
  const [bad, tooBig, ok] = await harness.subscribe(owner, 3);
  if (!bad || !tooBig || !ok) throw new Error('subscriptions missing');
  push.script(bad.id, { status: 400 });
  push.script(tooBig.id, { status: 413 });
  const { id } = await harness.notify(owner, { title: 'T', body: 'B' });
  t.match(await harness.finished(owner, id), { status: 'completed', targets: 3, sent: 1, failed: 2, expired: 0 });
  t.equal(messagesTo(bad.id).length, 1);
  t.equal(messagesTo(tooBig.id).length, 1);
});

t.test('the worker counts every push by outcome, with latency and queue depth, for Prometheus', async (t) => {
  if (!worker) throw new Error('the first test starts the worker');
  const text = await worker.metrics.metrics();
  const counter = (outcome: string) =>
    Number(new RegExp(`^webpush_pushes_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const answered = (statuses: number[]) => push.received.filter((m) => statuses.includes(m.status)).length;
  // The only worker of this file sent every message the stand-in received.
  t.equal(counter('sent'), answered([201]));
  t.equal(counter('expired'), answered([404, 410]));
  t.equal(counter('retry'), answered([429, 500, 502, 503]));
  t.equal(counter('failed'), answered([400, 413]));
  t.match(text, new RegExp(`webpush_push_duration_seconds_count\\{outcome="sent"\\} ${answered([201])}`));
  t.match(text, /webpush_queue_jobs\{queue="deliveries",state="waiting"\} 0/);
  t.match(text, /webpush_delivery_chunks_total\{result="recorded"\} [1-9]/);
});
