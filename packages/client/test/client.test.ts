import type { AddressInfo } from 'node:net';
import { bearer, createKey, startWebhookReceiver } from '@webpush/testing';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { createWebPushClient, signUid, verifyWebhook, WebhookVerificationError, WebPushError } from '../src/index.js';
import { deliveryHarness } from './delivery-harness.js';

// The client against the real API (listening on a port) and a real worker, delivering to the
// stand-in push service: every method, a retry that sends once, typed errors, and a webhook
// checked by the client's helper and by the `standardwebhooks` package.
const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());
const harness = await deliveryHarness(t, {
  WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
  WEBHOOK_RELAY_INTERVAL_MS: '100',
});
const { app, push } = harness;
await app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

async function notificationRows(appId: string) {
  return harness.database.sql<{ id: string }[]>`select id from notifications where app_id = ${appId}`;
}

t.test('subscribe, send, follow the notification: one push per subscriber', async (t) => {
  const owner = await harness.owner();
  const client = createWebPushClient({ apiKey: owner.secret, baseUrl });
  const subscriptions = [push.subscribe(), push.subscribe()];
  for (const subscription of subscriptions) {
    const answer = await client.subscribe({
      endpoint: subscription.endpoint,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    });
    t.match(answer.subscriber.id, /^[0-9a-f-]{36}$/);
  }
  t.equal(await client.vapidPublicKey(), owner.app.vapidPublicKey);

  const accepted = await client.notify({ title: 'こんにちは', body: 'from the client', url: 'https://example.com/' });
  t.match(accepted.notification, { status: 'queued', targets: 2 });
  const done = await harness.finished(owner, accepted.notification.id);
  t.match(done, { status: 'completed', sent: 2 });
  const shown = await client.getNotification(accepted.notification.id);
  t.match(shown, { id: accepted.notification.id, status: 'completed', sent: 2, failed: 0, expired: 0 });
  for (const subscription of subscriptions) {
    const messages = push.deliveredTo(subscription.id);
    t.equal(messages.length, 1);
    t.match(JSON.parse(messages[0]?.payload ?? '{}'), { title: 'こんにちは', id: accepted.notification.id });
  }

  const batch = await client.notifyBatch({
    endpoints: [subscriptions[0]?.endpoint ?? '', `${push.origin}/push/unknown`],
    title: 'batch',
    body: 'one of two',
  });
  t.match(batch, { notification: { targets: 1 }, unknownEndpoints: [`${push.origin}/push/unknown`] });
  await harness.finished(owner, batch.notification.id);

  await client.updateSubscription({ endpoint: subscriptions[1]?.endpoint ?? '', uid: 'user-7', tags: { plan: 'pro' } });
  const toUid = await client.notify({ title: 'for you', body: 'uid', uids: ['user-7'] });
  t.equal(toUid.notification.targets, 1);
  await harness.finished(owner, toUid.notification.id);

  await client.unsubscribe(subscriptions[1]?.endpoint ?? '');
  const afterUnsubscribe = await client.notify({ title: 'left', body: 'one', tags: { plan: 'pro' } });
  t.equal(afterUnsubscribe.notification.targets, 0, 'the unsubscribed endpoint is gone');
});

t.test('a scheduled send is canceled; canceling it again is NOT_CANCELABLE', async (t) => {
  const owner = await harness.owner();
  const client = createWebPushClient({ apiKey: owner.secret, baseUrl });
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  const scheduled = await client.notify({ title: 'later', body: 'in an hour', sendAt });
  t.equal(scheduled.notification.status, 'scheduled');
  const canceled = await client.cancelNotification(scheduled.notification.id);
  t.equal(canceled.status, 'canceled');
  const error = await client.cancelNotification(scheduled.notification.id).catch((e: unknown) => e);
  t.type(error, WebPushError);
  t.match(error, { status: 409, code: 'NOT_CANCELABLE' });
});

t.test('a test notification goes out with a full key', async (t) => {
  const owner = await harness.owner();
  const full = await createKey(app, owner.user.token, owner.app.id, 'full');
  const client = createWebPushClient({ apiKey: full.secret, baseUrl });
  const subscription = push.subscribe();
  const answer = await client.sendTestNotification(owner.app.id, {
    subscription: { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
  });
  t.strictSame(answer, { ok: true });
  t.equal(push.deliveredTo(subscription.id).length, 1);
});

t.test('an error answer is a WebPushError with code, status and the Japanese message', async (t) => {
  const owner = await harness.owner();
  const client = createWebPushClient({ apiKey: owner.secret, baseUrl });
  const error = await client.notify({ title: 'x', body: 'y', url: 'http://example.com/' }).catch((e: unknown) => e);
  t.type(error, WebPushError);
  t.match(error, { status: 400, code: 'INVALID_URL', upgradeUrl: null });
  t.match((error as WebPushError).error, JAPANESE);

  const unknownKey = createWebPushClient({ apiKey: 'wpk_nope', baseUrl });
  t.match(await unknownKey.getNotification(crypto.randomUUID()).catch((e: unknown) => e), {
    status: 401,
    code: 'INVALID_API_KEY',
  });
});

t.test('an answer lost after the API accepted is retried with the same Idempotency-Key: one send', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 3);
  const keys: string[] = [];
  let lost = 0;
  const client = createWebPushClient({
    apiKey: owner.secret,
    baseUrl,
    wait: async () => {},
    // A proxy that lets the first POST /notify through to the API and then answers 503 itself.
    async fetch(request) {
      if (request.method === 'POST') keys.push(request.headers.get('idempotency-key') ?? '');
      const response = await fetch(request);
      if (request.method === 'POST' && lost === 0) {
        lost++;
        await response.body?.cancel();
        return new Response('{"error":"upstream","code":"BAD_GATEWAY"}', { status: 503 });
      }
      return response;
    },
  });
  const accepted = await client.notify({ title: 'once', body: 'only once' });
  t.equal(keys.length, 2, 'sent twice');
  t.equal(keys[0], keys[1], 'with one Idempotency-Key');
  t.match(keys[0], /^[0-9a-f-]{36}$/);
  t.equal((await notificationRows(owner.app.id)).length, 1, 'one notification stored');
  const done = await harness.finished(owner, accepted.notification.id);
  t.match(done, { status: 'completed', targets: 3, sent: 3 });
  for (const subscription of subscriptions) t.equal(push.deliveredTo(subscription.id).length, 1, 'pushed once');

  const again = await client.notify({ title: 'next', body: 'send' });
  t.not(again.notification.id, accepted.notification.id, 'the next call is a new send with a new key');
  t.not(keys[2], keys[0]);
});

t.test('a 429 from the API is retried after its Retry-After; a plan limit is not retried', async (t) => {
  const owner = await harness.owner();
  const waits: number[] = [];
  const statuses: number[] = [];
  let limited = 0;
  const client = createWebPushClient({
    apiKey: owner.secret,
    baseUrl,
    wait: async (ms) => {
      waits.push(ms);
    },
    async fetch(request) {
      if (limited++ < 2)
        return new Response('{"error":"レート制限","code":"RATE_LIMITED"}', {
          status: 429,
          headers: { 'retry-after': '2', 'content-type': 'application/json' },
        });
      const response = await fetch(request);
      statuses.push(response.status);
      return response;
    },
  });
  const accepted = await client.notify({ title: 'after', body: 'waiting' });
  t.strictSame(waits, [2_000, 2_000], 'waited what Retry-After said, each time');
  t.strictSame(statuses, [202]);
  await harness.finished(owner, accepted.notification.id);

  await harness.subscribe(owner, 1); // a send with no targets is never over the limit
  await harness.database.sql`update users set plan = 'free' where id = ${owner.user.user.id}`;
  await harness.database.sql`
    insert into monthly_usage (user_id, month, sends)
    values (${owner.user.user.id}, date_trunc('month', now() at time zone 'utc')::date, 1000000000)
    on conflict (user_id, month) do update set sends = excluded.sends`;
  const attempts = statuses.length;
  const error = await client.notify({ title: 'over', body: 'limit' }).catch((e: unknown) => e);
  t.match(error, { status: 429, code: 'MONTHLY_LIMIT_EXCEEDED' });
  t.match((error as WebPushError).upgradeUrl, /^https?:\/\//);
  t.equal(statuses.length, attempts + 1, 'a plan limit is answered at once, not retried');
});

t.test('a webhook is verified by verifyWebhook and by standardwebhooks', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/client';
  const put = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}${path}`, events: ['notification.completed'] },
  });
  t.equal(put.statusCode, 200);
  const { secret } = put.json<{ webhook: { secret: string } }>().webhook;
  receiver.expect(path, secret);

  const client = createWebPushClient({ apiKey: owner.secret, baseUrl });
  await harness.subscribe(owner, 1);
  const accepted = await client.notify({ title: 'hook', body: 'me' });
  const [delivery] = await receiver.waitFor(path, 1);
  if (!delivery) throw new Error('no delivery');
  const headers = {
    'webhook-id': delivery.webhookId,
    'webhook-timestamp': delivery.timestamp,
    'webhook-signature': delivery.signature,
  };
  const event = verifyWebhook(headers, delivery.body, secret);
  t.equal(event.type, 'notification.completed');
  t.match(event.data, { id: accepted.notification.id, status: 'completed', sent: 1 });
  t.strictSame(new Webhook(secret).verify(delivery.body, headers), event, 'standardwebhooks agrees');
  t.strictSame(verifyWebhook(new Headers(headers), Buffer.from(delivery.body), secret), event, 'Headers and bytes');

  t.throws(() => verifyWebhook(headers, delivery.body.replace('hook', 'h00k'), secret), WebhookVerificationError);
  t.throws(() => verifyWebhook(headers, delivery.body, `whsec_${Buffer.alloc(32).toString('base64')}`));
  t.throws(
    () => verifyWebhook(headers, delivery.body, secret, { now: (Number(delivery.timestamp) + 600) * 1000 }),
    /too old/,
  );
});

t.test('signUid makes the uidSignature a subscribe_only key needs', async (t) => {
  const owner = await harness.owner();
  const created = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/identity-secret`,
    headers: bearer(owner.user.token),
  });
  t.equal(created.statusCode, 201);
  const { secret } = created.json<{ secret: string }>();
  const browserKey = await createKey(app, owner.user.token, owner.app.id, 'subscribe_only');
  const client = createWebPushClient({ apiKey: browserKey.secret, baseUrl });

  const signed = push.subscribe();
  const answer = await client.subscribe({
    endpoint: signed.endpoint,
    p256dh: signed.p256dh,
    auth: signed.auth,
    uid: 'customer-42',
    uidSignature: signUid('customer-42', secret),
  });
  t.match(answer.subscriber.id, /^[0-9a-f-]{36}$/);
  t.match(signUid('customer-42', secret), /^[0-9a-f]{64}$/);

  const forged = push.subscribe();
  const error = await client
    .subscribe({
      endpoint: forged.endpoint,
      p256dh: forged.p256dh,
      auth: forged.auth,
      uid: 'customer-43',
      uidSignature: signUid('customer-42', secret),
    })
    .catch((e: unknown) => e);
  t.match(error, { status: 403, code: 'INVALID_UID_SIGNATURE' });
});
