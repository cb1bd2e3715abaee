import { bearer, startWebhookReceiver, waitFor } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// Webhooks end to end: the API sets the endpoint, the worker changes state (a send completes, a
// subscription expires), the outbox row written with that change becomes a job, and a local HTTPS
// receiver checks each delivery with the `standardwebhooks` package.
const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());
const MAX_ATTEMPTS = 4;
const TIMEOUT_MS = 700;
const harness = await deliveryHarness(t, {
  WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
  WEBHOOK_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
  WEBHOOK_BACKOFF_MS: '50',
  WEBHOOK_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_RELAY_INTERVAL_MS: '100',
  WEBHOOK_RELAY_STALE_MS: '1000',
});
const { app, config, push } = harness;
const sql = harness.database.sql;
const worker = await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });

const EVENTS = ['notification.completed', 'notification.failed', 'subscription.expired'];

interface Attempt {
  id: string;
  messageId: string;
  type: string;
  url: string;
  status: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
  messageStatus: string;
}

/** Sets the owner's webhook to `url` through the API and tells the receiver its secret. */
async function setWebhook(owner: Owner, path: string, events = EVENTS, url = `${receiver.origin}${path}`) {
  const response = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url, events },
  });
  if (response.statusCode !== 200) throw new Error(`PUT webhook: ${response.statusCode} ${response.body}`);
  const { secret } = response.json<{ webhook: { secret: string } }>().webhook;
  receiver.expect(path, secret);
  return secret;
}

async function deliveries(owner: Owner): Promise<Attempt[]> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/webhook/deliveries`,
    headers: bearer(owner.user.token),
  });
  if (response.statusCode !== 200) throw new Error(`deliveries: ${response.statusCode} ${response.body}`);
  return response.json<{ deliveries: Attempt[] }>().deliveries;
}

/** Polls the deliveries list until `done` holds for it. */
async function attemptsUntil(owner: Owner, done: (attempts: Attempt[]) => boolean, timeoutMs = 15_000) {
  let attempts: Attempt[] = [];
  await waitFor(
    async () => {
      attempts = await deliveries(owner);
      return done(attempts);
    },
    'the deliveries list shows the attempts the test expects',
    { timeoutMs, intervalMs: 50 },
  );
  return attempts;
}

t.test('notification.completed arrives after a send, signed (Standard Webhooks), with the notification', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/completed';
  await setWebhook(owner, path);
  await harness.subscribe(owner, 2);
  const { id } = await harness.notify(owner, { title: 'Hello', body: 'world', url: 'https://example.com/x' });
  const notification = await harness.finished(owner, id);
  t.match(notification, { status: 'completed', sent: 2 });

  const [request] = await receiver.waitFor(path, 1);
  t.equal(request?.verifyError, null, 'standardwebhooks verifies the signature');
  t.match(request?.webhookId, /^[0-9a-f-]{36}$/);
  t.match(request?.signature, /^v1,[A-Za-z0-9+/]+=*$/);
  t.ok(Math.abs(Number(request?.timestamp) - Date.now() / 1000) < 60, 'webhook-timestamp is now, in seconds');
  t.equal(request?.contentType, 'application/json');
  const body = JSON.parse(request?.body ?? '{}');
  t.strictSame(Object.keys(body), ['type', 'timestamp', 'data']);
  t.equal(body.type, 'notification.completed');
  t.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const shown = await app.inject({ method: 'GET', url: `/api/v1/notifications/${id}`, headers: bearer(owner.secret) });
  t.strictSame(body.data, shown.json<{ notification: unknown }>().notification, 'data is the notification object');
  t.strictSame(request?.verified, body);

  const attempts = await attemptsUntil(owner, (list) => list[0]?.messageStatus === 'delivered');
  t.equal(attempts.length, 1);
  t.match(attempts[0], {
    messageId: request?.webhookId,
    type: 'notification.completed',
    url: `${receiver.origin}${path}`,
    status: 200,
    response: 'ok',
    error: null,
    messageStatus: 'delivered',
  });
  // A later send's event must come after any second delivery of this one: wait for it instead of a time.
  const marker = await harness.notify(owner, { title: 'Marker', body: 'after' });
  t.match(await harness.finished(owner, marker.id), { status: 'completed' });
  const deliveriesOf = (notificationId: string) =>
    receiver.requestsTo(path).filter((received) => JSON.parse(received.body).data?.id === notificationId).length;
  await waitFor(() => deliveriesOf(marker.id) > 0, "the later send's event arrived");
  t.equal(deliveriesOf(id), 1, 'exactly one delivery');
});

t.test(
  'subscription.expired after a 410 from the push service; notification.failed when nothing was sent',
  async (t) => {
    const owner = await harness.owner();
    const path = '/hooks/expired';
    await setWebhook(owner, path);
    const [subscription] = await harness.subscribe(owner, 1);
    if (!subscription) throw new Error('no subscription');
    push.script(subscription.id, { status: 410 });
    const { id } = await harness.notify(owner, { title: 'Gone', body: 'soon' });
    t.match(await harness.finished(owner, id), { status: 'failed', sent: 0, expired: 1 });

    const requests = await receiver.waitFor(path, 2);
    for (const request of requests) t.equal(request.verifyError, null, 'signature verifies');
    const bodies = requests.map((request) => JSON.parse(request.body));
    const expired = bodies.find((body) => body.type === 'subscription.expired');
    t.strictSame(expired?.data, {
      subscriber: { id: subscription.subscriberId, endpoint: subscription.endpoint, uid: null },
    });
    const failed = bodies.find((body) => body.type === 'notification.failed');
    t.match(failed?.data, { id, status: 'failed', sent: 0, expired: 1 });
    t.not(requests[0]?.webhookId, requests[1]?.webhookId, 'each event has its own webhook-id');
  },
);

t.test('notification.failed when a scheduled send is over the monthly limit at its start', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/limit';
  await setWebhook(owner, path);
  await harness.subscribe(owner, 2);
  const userId = owner.user.user.id;
  await sql`update users set plan = 'free' where id = ${userId}`;
  const sendAt = new Date(Date.now() + 600).toISOString();
  const { id } = await harness.notify(owner, { title: 'Over', body: 'limit', sendAt });
  await sql`insert into monthly_usage (user_id, month, sends)
    values (${userId}, date_trunc('month', now() at time zone 'UTC')::date, 29999)
    on conflict (user_id, month) do update set sends = excluded.sends`;
  t.match(await harness.finished(owner, id), { status: 'failed', errorCode: 'MONTHLY_LIMIT_EXCEEDED' });

  const [request] = await receiver.waitFor(path, 1);
  t.equal(request?.verifyError, null);
  const body = JSON.parse(request?.body ?? '{}');
  t.match(body, { type: 'notification.failed', data: { id, status: 'failed', errorCode: 'MONTHLY_LIMIT_EXCEEDED' } });
});

t.test('a send with no target completes at acceptance: notification.completed, written by the API', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/empty';
  await setWebhook(owner, path);
  const { id, targets } = await harness.notify(owner, { title: 'Nobody', body: 'here' });
  t.equal(targets, 0);
  const [request] = await receiver.waitFor(path, 1);
  t.match(JSON.parse(request?.body ?? '{}'), { type: 'notification.completed', data: { id, targets: 0 } });
});

t.test('only the events the webhook subscribes to are written and sent', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/only-expired';
  await setWebhook(owner, path, ['subscription.expired']);
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'No', body: 'event' });
  await harness.finished(owner, id);
  await worker.webhooks.relayOnce();
  const [row] = await sql`select count(*)::int as n from webhook_messages where app_id = ${owner.app.id}`;
  t.equal(row?.n, 0, 'no outbox row for an event the app did not ask for');
  t.equal(receiver.requestsTo(path).length, 0);
});

t.test('a receiver answering 500 three times gets the event on the fourth attempt, same webhook-id', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/flaky';
  await setWebhook(owner, path);
  receiver.script(path, { status: 500, body: 'database down', times: 3 });
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Retry', body: 'me' });
  await harness.finished(owner, id);

  const requests = await receiver.waitFor(path, 4);
  t.equal(requests.length, 4);
  const ids = new Set(requests.map((request) => request.webhookId));
  t.equal(ids.size, 1, 'the webhook-id is stable across retries');
  t.equal(new Set(requests.map((request) => request.body)).size, 1, 'the same body every time');
  for (const request of requests) t.equal(request.verifyError, null, 'every attempt is signed');

  const attempts = await attemptsUntil(owner, (list) => list[0]?.messageStatus === 'delivered');
  t.strictSame(
    attempts.map((attempt) => attempt.status),
    [200, 500, 500, 500],
    'four attempts recorded, newest first',
  );
  t.equal(attempts[3]?.response, 'database down', 'the answer is kept');
  t.ok(attempts.every((attempt) => attempt.messageId === [...ids][0]));
  const [message] =
    await sql`select status, attempts, delivered_at from webhook_messages where id = ${[...ids][0] ?? ''}`;
  t.match(message, { status: 'delivered', attempts: 4 });
  t.ok(message?.delivered_at);
});

t.test('a receiver that hangs times out; after the last attempt the event is failed; send again works', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/hang';
  await setWebhook(owner, path);
  receiver.script(path, { status: 200, delayMs: 60_000, times: MAX_ATTEMPTS });
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Slow', body: 'receiver' });
  await harness.finished(owner, id);

  const attempts = await attemptsUntil(owner, (list) => list[0]?.messageStatus === 'failed', 30_000);
  t.equal(attempts.length, MAX_ATTEMPTS, 'every attempt was made, then no more');
  for (const attempt of attempts) {
    t.match(attempt, { status: null, response: null, error: 'timeout' }, 'the kind of failure, not its details');
    t.ok(attempt.durationMs >= TIMEOUT_MS - 50, `gave up after the timeout (${attempt.durationMs} ms)`);
  }

  // Send again: the receiver answers now; the same webhook-id goes out once more.
  const retry = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/webhook/deliveries/${attempts[0]?.id}/retry`,
    headers: bearer(owner.user.token),
  });
  t.equal(retry.statusCode, 202);
  const after = await attemptsUntil(owner, (list) => list[0]?.messageStatus === 'delivered');
  t.match(after[0], { status: 200, messageId: attempts[0]?.messageId });
  const requests = receiver.requestsTo(path);
  t.equal(requests.at(-1)?.webhookId, attempts[0]?.messageId);
  t.equal(requests.at(-1)?.verifyError, null);
});

t.test('the answer is read up to a small cap; no redirect is followed', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/big';
  await setWebhook(owner, path);
  receiver.script(
    path,
    { status: 302, headers: { location: `${receiver.origin}/hooks/elsewhere` }, body: 'moved' },
    { status: 200, body: 'x'.repeat(200_000) },
  );
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Big', body: 'answer' });
  await harness.finished(owner, id);

  const attempts = await attemptsUntil(owner, (list) => list[0]?.messageStatus === 'delivered');
  t.match(attempts[1], { status: 302, response: 'moved', messageStatus: 'delivered' }, 'a 3xx is a failed attempt');
  t.equal(receiver.requestsTo('/hooks/elsewhere').length, 0, 'the redirect target got nothing');
  t.equal(attempts[0]?.status, 200);
  t.equal(attempts[0]?.response?.length, 1024, 'only the first 1 KiB of the answer is kept');
});

t.test(
  'SSRF at connect time: loopback, literal or by name, IPv6 and IPv4-mapped, are never connected to',
  async (t) => {
    // A second receiver that is not exempt: the stored URL was changed behind the API's back (or the
    // name was public at PUT and resolves to loopback now, as in DNS rebinding).
    const target = await startWebhookReceiver();
    t.teardown(() => target.close());
    for (const url of [
      `https://localhost:${target.port}/ssrf`,
      `https://127.0.0.1:${target.port}/ssrf`,
      `https://[::1]:${target.port}/ssrf`,
      `https://[::ffff:127.0.0.1]:${target.port}/ssrf`,
      `https://[::ffff:7f00:1]:${target.port}/ssrf`,
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/hook',
    ]) {
      const owner = await harness.owner();
      await setWebhook(owner, '/unused');
      await sql`update webhooks set url = ${url} where app_id = ${owner.app.id}`;
      await harness.subscribe(owner, 1);
      const { id } = await harness.notify(owner, { title: 'SSRF', body: url });
      await harness.finished(owner, id);
      const [first] = await attemptsUntil(owner, (list) => list.length > 0);
      t.match(first, { status: null, response: null, url }, `${url}: no answer`);
      t.equal(first?.error, 'address not allowed', `${url}: refused, without saying which address`);
    }
    t.equal(target.received.length, 0, 'the loopback receiver never got a request');
  },
);

t.test('the outbox: an event written while no worker delivers is delivered once a worker runs', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/outbox';
  await setWebhook(owner, path);
  await harness.subscribe(owner, 1);
  // The running worker stops; another one does the send but never relays (as if killed right after
  // the state change): the event exists only as the outbox row written with the completion.
  await worker.close();
  const sender = await harness.startInProcessWorker({
    config: { ...config, webhooks: { ...config.webhooks, relayIntervalMs: 3_600_000, concurrency: 1 } },
    deps: { webhookCa: receiver.caPem },
  });
  const { id } = await harness.notify(owner, { title: 'Outbox', body: 'survives' });
  t.match(await harness.finished(owner, id), { status: 'completed' });
  await sender.close();
  const [row] = await sql`select id, status, queued_at from webhook_messages where app_id = ${owner.app.id}`;
  t.match(row, { status: 'pending', queued_at: null }, 'written with the completion, never queued');
  t.equal(await app.queues.webhooks.getJobState(String(row?.id)), 'unknown', 'no job exists');
  t.equal(receiver.requestsTo(path).length, 0);

  // A worker runs again: its relay finds the row and delivers it.
  await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });
  const [request] = await receiver.waitFor(path, 1);
  t.equal(request?.webhookId, row?.id);
  t.equal(request?.verifyError, null);
  t.equal(JSON.parse(request?.body ?? '{}').type, 'notification.completed');
});

t.test('an event whose job was lost with Redis is queued again by the relay', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/lost-job';
  await setWebhook(owner, path);
  // Stand in for a job that vanished: a pending row marked queued long ago, with no job in Redis.
  const [subscriber] = await harness.subscribe(owner, 1);
  await sql`insert into webhook_messages (app_id, type, subject_id, dedupe_key, data, queued_at)
    values (${owner.app.id}, 'subscription.expired', ${subscriber?.subscriberId ?? ''}, ${`lost:${owner.app.id}`},
      ${JSON.stringify({ subscriber: { id: subscriber?.subscriberId, endpoint: subscriber?.endpoint, uid: 'u1' } })}::jsonb,
      now() - interval '1 hour')`;
  const [request] = await receiver.waitFor(path, 1);
  t.strictSame(JSON.parse(request?.body ?? '{}').data, {
    subscriber: { id: subscriber?.subscriberId, endpoint: subscriber?.endpoint, uid: 'u1' },
  });
});
