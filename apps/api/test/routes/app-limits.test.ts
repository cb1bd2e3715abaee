import { randomUUID } from 'node:crypto';
import { errorDetails } from '@webpush/errors';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, registerUser } from '../helper.js';

// Per-app caps on what a session can pile up: API keys (API_KEYS_PER_APP_MAX) and "send again" of
// webhook deliveries (WEBHOOK_RESEND_MAX per window).
const ctx = await buildTestApp(t, { API_KEYS_PER_APP_MAX: '3', WEBHOOK_RESEND_MAX: '2' });
const { app } = ctx;
const sql = ctx.database.sql;

const createKey = (token: string, appId: string) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/keys`,
    headers: bearer(token),
    payload: { scope: 'notify' },
  });

t.test('an app has at most API_KEYS_PER_APP_MAX keys, also under concurrency', async (t) => {
  const user = await registerUser(app);
  const owned = await createApp(app, user.token);
  const answers = await Promise.all(Array.from({ length: 6 }, () => createKey(user.token, owned.id)));
  t.equal(answers.filter((answer) => answer.statusCode === 201).length, 3, 'exactly three of six simultaneous');
  const refused = answers.find((answer) => answer.statusCode !== 201);
  t.equal(refused?.statusCode, 400);
  t.strictSame(refused?.json(), { error: errorDetails.TOO_MANY_API_KEYS.message, code: 'INVALID_INPUT' });
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from api_keys where app_id = ${owned.id}`;
  t.equal(row?.n, 3, 'three stored');

  const created = answers.find((answer) => answer.statusCode === 201);
  const keyId = created ? (created.json() as { key: { id: string } }).key.id : '';
  const deleted = await app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${owned.id}/keys/${keyId}`,
    headers: bearer(user.token),
  });
  t.equal(deleted.statusCode, 204);
  t.equal((await createKey(user.token, owned.id)).statusCode, 201, 'a deleted key frees its place');
});

t.test('"send again" is limited per app', async (t) => {
  const user = await registerUser(app);
  const owned = await createApp(app, user.token);
  const subject = randomUUID();
  const [message] = await sql<{ id: string }[]>`
    insert into webhook_messages (app_id, type, subject_id, dedupe_key, status, attempts, body)
    values (${owned.id}, 'subscription.expired', ${subject}, ${`test:${subject}`}, 'failed', 2, '{}')
    returning id`;
  const [attempt] = await sql<{ id: string }[]>`
    insert into webhook_attempts (message_id, app_id, url, status, duration_ms, response)
    values (${message?.id ?? ''}, ${owned.id}, 'https://93.184.215.14/hook', 500, 12, 'oops')
    returning id`;
  const resend = () =>
    app.inject({
      method: 'POST',
      url: `/api/v1/apps/${owned.id}/webhook/deliveries/${attempt?.id}/retry`,
      headers: bearer(user.token),
    });
  t.equal((await resend()).statusCode, 202);
  t.equal((await resend()).statusCode, 202);
  const over = await resend();
  assertError(t, over, 'RATE_LIMITED');
  t.equal(over.headers['retry-after'], '60');
  await app.queues.webhooks.obliterate({ force: true });
});
