import { randomUUID } from 'node:crypto';
import { signWebhook } from '@webpush/webhooks';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, ownerWithKey } from '../helper.js';

const ctx = await buildTestApp(t, { WEBHOOK_ALLOWED_HOSTS: 'receiver.test:8443' });
const { app } = ctx;
const sql = ctx.database.sql;
const owner = await ownerWithKey(app, 'full');
const other = await ownerWithKey(app, 'full');
const url = `/api/v1/apps/${owner.app.id}/webhook`;
const session = bearer(owner.user.token);
const events = ['notification.completed', 'subscription.expired'];
// A public address literal: no DNS needed, so the test does not depend on the network.
const publicUrl = 'https://93.184.215.14/hooks/push';

interface WebhookAnswer {
  webhook: { url: string; events: string[]; secret: string };
}

/** The circuit breaker of a webhook that has never failed. */
const healthy = {
  status: 'active',
  failuresInARow: 0,
  pausedUntil: null,
  failingSince: null,
  lastError: null,
  disabledAt: null,
};

t.test('PUT creates the webhook with a whsec_ secret sealed at rest; GET hides it; rotate replaces it', async (t) => {
  const put = await app.inject({ method: 'PUT', url, headers: session, payload: { url: publicUrl, events } });
  t.equal(put.statusCode, 200);
  const { webhook } = put.json<WebhookAnswer>();
  t.strictSame(Object.keys(webhook).sort(), ['events', 'secret', 'url', ...Object.keys(healthy)].sort());
  t.match(webhook, { url: publicUrl, events });
  t.match(webhook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const [row] = await sql`select secret_sealed from webhooks where app_id = ${owner.app.id}`;
  t.match(String(row?.secret_sealed), /^v2\./, 'sealed like the VAPID keys');
  t.notOk(String(row?.secret_sealed).includes(webhook.secret.slice(6)), 'not stored in clear');

  // The signature scheme is Standard Webhooks: the independent package verifies ours.
  const body = '{"type":"notification.completed"}';
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(webhook.secret, 'msg_1', timestamp, body),
  };
  t.strictSame(new Webhook(webhook.secret).verify(body, headers), { type: 'notification.completed' });

  const get = await app.inject({ method: 'GET', url, headers: session });
  t.equal(get.statusCode, 200);
  t.strictSame(get.json(), { webhook: { url: publicUrl, events, ...healthy } });

  // Changing the URL and events keeps the secret.
  const again = await app.inject({
    method: 'PUT',
    url,
    headers: session,
    payload: { url: 'http://receiver.test:8443/hook', events: ['notification.failed'] },
  });
  t.equal(again.statusCode, 200, 'an allowed host may use http://');
  t.strictSame(again.json(), {
    webhook: {
      url: 'http://receiver.test:8443/hook',
      events: ['notification.failed'],
      ...healthy,
      secret: webhook.secret,
    },
  });

  const rotated = await app.inject({ method: 'POST', url: `${url}/rotate-secret`, headers: session });
  t.equal(rotated.statusCode, 200);
  const next = rotated.json<WebhookAnswer>().webhook;
  t.match(next, { url: 'http://receiver.test:8443/hook', events: ['notification.failed'] });
  t.match(next.secret, /^whsec_/);
  t.not(next.secret, webhook.secret);
  const [after] = await sql`select secret_sealed from webhooks where app_id = ${owner.app.id}`;
  t.not(after?.secret_sealed, row?.secret_sealed, 'the stored secret changed');

  const deliveries = await app.inject({ method: 'GET', url: `${url}/deliveries`, headers: session });
  t.strictSame(deliveries.json(), { deliveries: [] });

  // Another user sees nothing of it.
  const stranger = bearer(other.user.token);
  assertError(t, await app.inject({ method: 'GET', url, headers: stranger }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'POST', url: `${url}/rotate-secret`, headers: stranger }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'DELETE', url, headers: stranger }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'GET', url: `${url}/deliveries`, headers: stranger }), 'NOT_FOUND');

  t.equal((await app.inject({ method: 'DELETE', url, headers: session })).statusCode, 204);
  const none = await app.inject({ method: 'GET', url, headers: session });
  t.equal(none.statusCode, 200, 'an app without a webhook is not an error');
  t.strictSame(none.json(), { webhook: null });
  assertError(t, await app.inject({ method: 'DELETE', url, headers: session }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'POST', url: `${url}/rotate-secret`, headers: session }), 'NOT_FOUND');
});

t.test('URLs that are not https or reach a refused address are 400 INVALID_URL at PUT', async (t) => {
  for (const target of [
    'http://93.184.215.14/hook',
    'https://127.0.0.1/hook',
    'https://127.0.0.1:8443/hook',
    'https://2130706433/hook', // 127.0.0.1 written as a number
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://0.0.0.0/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/hook',
    'https://172.16.5.4/hook',
    'https://192.168.1.1/hook',
    'https://100.64.0.1/hook',
    'https://224.0.0.1/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:7f00:1]/hook',
    'https://[::ffff:a9fe:a9fe]/hook', // 169.254.169.254, IPv4-mapped
    'https://[fd00:ec2::254]/hook', // AWS metadata over IPv6
    'https://[fe80::1]/hook',
    'https://localhost/hook', // a name that resolves to loopback
    'https://user:pass@93.184.215.14/hook',
    'ftp://93.184.215.14/hook',
    'not a url',
  ]) {
    const response = await app.inject({ method: 'PUT', url, headers: session, payload: { url: target, events } });
    assertError(t, response, 'INVALID_URL');
  }
  const [row] = await sql`select count(*)::int as n from webhooks where app_id = ${owner.app.id}`;
  t.equal(row?.n, 0, 'nothing stored');
});

t.test('malformed bodies and auth', async (t) => {
  assertError(t, await app.inject({ method: 'PUT', url, headers: session, payload: { events } }), 'MISSING_FIELDS');
  assertError(
    t,
    await app.inject({ method: 'PUT', url, headers: session, payload: { url: publicUrl } }),
    'MISSING_FIELDS',
  );
  for (const bad of [['nope'], [], ['notification.failed', 'notification.failed'], 'notification.failed']) {
    assertError(
      t,
      await app.inject({ method: 'PUT', url, headers: session, payload: { url: publicUrl, events: bad } }),
      'INVALID_INPUT',
    );
  }
  assertError(
    t,
    await app.inject({
      method: 'GET',
      url: `${url}/deliveries?limit=0`,
      headers: session,
    }),
    'INVALID_INPUT',
  );
  assertError(t, await app.inject({ method: 'GET', url }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'PUT', url, payload: { url: publicUrl, events } }), 'UNAUTHORIZED');
  // An API key is not a session.
  assertError(t, await app.inject({ method: 'GET', url, headers: bearer(owner.secret) }), 'INVALID_SESSION');
  assertError(
    t,
    await app.inject({ method: 'GET', url: `/api/v1/apps/${randomUUID()}/webhook`, headers: session }),
    'NOT_FOUND',
  );
});

t.test('deliveries list attempts newest first; send again queues the same event, for its owner only', async (t) => {
  const put = await app.inject({ method: 'PUT', url, headers: session, payload: { url: publicUrl, events } });
  t.equal(put.statusCode, 200);
  const subject = randomUUID();
  const [message] = await sql<{ id: string }[]>`
    insert into webhook_messages (app_id, type, subject_id, dedupe_key, status, attempts, body)
    values (${owner.app.id}, 'subscription.expired', ${subject}, ${`test:${subject}`}, 'failed', 2, '{}')
    returning id`;
  const messageId = message?.id ?? '';
  const [first] = await sql<{ id: string }[]>`
    insert into webhook_attempts (message_id, app_id, url, status, duration_ms, response, created_at)
    values (${messageId}, ${owner.app.id}, ${publicUrl}, 500, 12, 'oops', now() - interval '1 minute')
    returning id`;
  const [second] = await sql<{ id: string }[]>`
    insert into webhook_attempts (message_id, app_id, url, status, duration_ms, error)
    values (${messageId}, ${owner.app.id}, ${publicUrl}, null, 10000, 'timed out after 10000 ms')
    returning id`;

  const list = await app.inject({ method: 'GET', url: `${url}/deliveries`, headers: session });
  t.equal(list.statusCode, 200);
  const { deliveries } = list.json<{ deliveries: Record<string, unknown>[] }>();
  t.equal(deliveries.length, 2);
  t.match(deliveries[0], {
    id: second?.id,
    messageId,
    type: 'subscription.expired',
    url: publicUrl,
    status: null,
    durationMs: 10000,
    response: null,
    error: 'timed out after 10000 ms',
    messageStatus: 'failed',
  });
  t.match(deliveries[1], { id: first?.id, status: 500, response: 'oops', error: null, durationMs: 12 });
  t.match(deliveries[1]?.createdAt, /^\d{4}-\d\d-\d\dT/);
  const limited = await app.inject({ method: 'GET', url: `${url}/deliveries?limit=1`, headers: session });
  t.equal(limited.json<{ deliveries: unknown[] }>().deliveries.length, 1);

  // Another user can neither list nor resend it; malformed and unknown ids are 404.
  const stranger = bearer(other.user.token);
  const otherUrl = `/api/v1/apps/${other.app.id}/webhook`;
  assertError(
    t,
    await app.inject({ method: 'POST', url: `${url}/deliveries/${first?.id}/retry`, headers: stranger }),
    'NOT_FOUND',
  );
  assertError(
    t,
    await app.inject({ method: 'POST', url: `${otherUrl}/deliveries/${first?.id}/retry`, headers: stranger }),
    'NOT_FOUND',
    {},
  );
  t.strictSame(
    (await app.inject({ method: 'GET', url: `${otherUrl}/deliveries`, headers: stranger })).json(),
    { deliveries: [] },
    "the other app's list stays empty",
  );
  for (const id of ['nope', randomUUID()]) {
    assertError(
      t,
      await app.inject({ method: 'POST', url: `${url}/deliveries/${id}/retry`, headers: session }),
      'NOT_FOUND',
    );
  }
  const [untouched] = await sql`select status from webhook_messages where id = ${messageId}`;
  t.equal(untouched?.status, 'failed', 'nothing changed by the refused requests');

  const resend = await app.inject({ method: 'POST', url: `${url}/deliveries/${first?.id}/retry`, headers: session });
  t.equal(resend.statusCode, 202);
  t.strictSame(resend.json(), { delivery: { messageId, status: 'pending' } });
  t.match(messageId, UUID);
  const [pending] = await sql`select status, body from webhook_messages where id = ${messageId}`;
  t.match(pending, { status: 'pending', body: '{}' }, 'pending again, same body');
  const job = await app.queues.webhooks.getJob(messageId);
  t.ok(job, 'a delivery job exists under the event id');
  t.strictSame(job?.data, { messageId });
  t.equal(job?.opts.attempts, ctx.config.webhooks.maxAttempts);

  // Sending again while the job waits replaces it rather than adding a second one.
  const twice = await app.inject({ method: 'POST', url: `${url}/deliveries/${second?.id}/retry`, headers: session });
  t.equal(twice.statusCode, 202);
  t.equal(await app.queues.webhooks.count(), 1, 'still one job for the event');
  await app.queues.webhooks.obliterate({ force: true });
});

t.test('GET shows the breaker paused, then disabled, with the last error; resume and a new URL reset it', async (t) => {
  const appId = owner.app.id;
  t.equal(
    (await app.inject({ method: 'PUT', url, headers: session, payload: { url: publicUrl, events } })).statusCode,
    200,
  );
  const state = async () => {
    const answer = await app.inject({ method: 'GET', url, headers: session });
    t.equal(answer.statusCode, 200);
    return answer.json<{ webhook: Record<string, unknown> }>().webhook;
  };
  // What a worker writes after failures (apps/worker/test/webhook-breaker.test.ts drives the real thing).
  const message = randomUUID();
  await sql`insert into webhook_messages (id, app_id, type, subject_id, dedupe_key, queued_at)
    values (${message}, ${appId}, 'notification.completed', ${randomUUID()}, ${`breaker-${message}`}, now())`;
  await sql`update webhooks set failures_in_a_row = 6, paused_until = now() + interval '5 minutes',
    failing_since = now() - interval '1 hour', last_error_reason = 'HTTP 503', last_error_status = 503,
    last_error_at = now() where app_id = ${appId}`;
  const paused = await state();
  t.match(paused, {
    url: publicUrl,
    status: 'paused',
    failuresInARow: 6,
    pausedUntil: /^\d{4}-\d\d-\d\dT/,
    failingSince: /^\d{4}-\d\d-\d\dT/,
    lastError: { reason: 'HTTP 503', status: 503, at: /^\d{4}-/ },
    disabledAt: null,
  });
  t.ok(Date.parse(String(paused.pausedUntil)) > Date.now(), 'resumes in the future');
  t.notOk('secret' in paused);

  await sql`update webhooks set disabled_at = now(), paused_until = null,
    last_error_reason = 'timeout', last_error_status = null where app_id = ${appId}`;
  t.match(await state(), {
    status: 'disabled',
    pausedUntil: null,
    lastError: { reason: 'timeout', status: null },
    disabledAt: /^\d{4}-/,
  });

  // Another user can neither see nor resume it.
  const stranger = bearer(other.user.token);
  assertError(t, await app.inject({ method: 'POST', url: `${url}/resume`, headers: stranger }), 'NOT_FOUND');
  t.match(await state(), { status: 'disabled' }, 'still disabled');

  const resumed = await app.inject({ method: 'POST', url: `${url}/resume`, headers: session });
  t.equal(resumed.statusCode, 200);
  t.strictSame(resumed.json(), {
    webhook: {
      url: publicUrl,
      events,
      ...healthy,
      lastError: resumed.json<{ webhook: { lastError: unknown } }>().webhook.lastError,
    },
  });
  t.match(resumed.json(), { webhook: { lastError: { reason: 'timeout' } } }, 'the last error stays, for the record');
  const [held] = await sql`select status, queued_at from webhook_messages where id = ${message}`;
  t.match(held, { status: 'pending', queued_at: null }, 'a held event goes back to the relay');
  t.ok(await app.queues.webhooks.getJob(message), 'and on the queue at once');
  await app.queues.webhooks.obliterate({ force: true });

  // A new URL is a new receiver: its breaker starts afresh; the same URL keeps it.
  await sql`update webhooks set failures_in_a_row = 7, disabled_at = now(), failing_since = now() where app_id = ${appId}`;
  await app.inject({ method: 'PUT', url, headers: session, payload: { url: publicUrl, events } });
  t.match(await state(), { status: 'disabled', failuresInARow: 7 }, 'saving the same URL changes nothing');
  await app.inject({ method: 'PUT', url, headers: session, payload: { url: 'http://receiver.test:8443/new', events } });
  t.match(await state(), { status: 'active', failuresInARow: 0, failingSince: null, disabledAt: null });

  await app.inject({ method: 'DELETE', url, headers: session });
  assertError(t, await app.inject({ method: 'POST', url: `${url}/resume`, headers: session }), 'NOT_FOUND');
  const nobody = await app.inject({ method: 'POST', url: `${url}/resume` });
  t.equal(nobody.statusCode, 401);
});

t.test('the OpenAPI document has the webhook routes, send again included', async (t) => {
  const document = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json<{
    paths: Record<string, Record<string, unknown>>;
  }>();
  const base = '/api/v1/apps/{appId}/webhook';
  t.strictSame(Object.keys(document.paths[base] ?? {}).sort(), ['delete', 'get', 'put']);
  t.ok(document.paths[`${base}/rotate-secret`]?.post);
  t.ok(document.paths[`${base}/resume`]?.post);
  t.ok(document.paths[`${base}/deliveries`]?.get);
  t.ok(document.paths[`${base}/deliveries/{deliveryId}/retry`]?.post);
});
