import { signWebhook } from '@webpush/webhooks';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, ownerWithKey } from '../helper.js';

const ctx = await buildTestApp(t, { WEBHOOK_ALLOWED_HOSTS: 'receiver.test:8443' });
const { app } = ctx;
const sql = ctx.database.sql;
const owner = await ownerWithKey(app, 'full');
const other = await ownerWithKey(app, 'full');
const url = `/api/v1/apps/${owner.app.id}/webhook`;
const session = bearer(owner.user.token);
const events = ['notification.completed', 'subscription.expired'];

t.test('PUT creates the webhook with a whsec_ secret sealed at rest; GET hides it; rotate replaces it', async (t) => {
  const put = await app.inject({
    method: 'PUT',
    url,
    headers: session,
    payload: { url: 'http://receiver.test:8443/hook', events },
  });
  t.equal(put.statusCode, 200, 'an allowed host may use http://');
  const { webhook } = put.json<{ webhook: { url: string; events: string[]; secret: string } }>();
  t.match(webhook, { url: 'http://receiver.test:8443/hook', events });
  t.match(webhook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const [row] = await sql`select secret_sealed from webhooks where app_id = ${owner.app.id}`;
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
  t.strictSame(get.json(), { webhook: { url: 'http://receiver.test:8443/hook', events } });

  const rotated = await app.inject({ method: 'POST', url: `${url}/rotate-secret`, headers: session });
  t.equal(rotated.statusCode, 200);
  const secret = rotated.json<{ webhook: { secret: string } }>().webhook.secret;
  t.match(secret, /^whsec_/);
  t.not(secret, webhook.secret);

  const deliveries = await app.inject({ method: 'GET', url: `${url}/deliveries`, headers: session });
  t.strictSame(deliveries.json(), { deliveries: [] });

  assertError(t, await app.inject({ method: 'GET', url, headers: bearer(other.user.token) }), 'NOT_FOUND');
  t.equal((await app.inject({ method: 'DELETE', url, headers: session })).statusCode, 204);
  assertError(t, await app.inject({ method: 'GET', url, headers: session }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'DELETE', url, headers: session }), 'NOT_FOUND');
});

t.test('URLs that are not https or reach a refused address are 400 INVALID_URL at PUT', async (t) => {
  for (const target of [
    'http://example.com/hook',
    'https://127.0.0.1/hook',
    'https://[::1]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/hook',
    'https://192.168.1.1/hook',
    'https://100.64.0.1/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[fd00:ec2::254]/hook',
    'https://localhost/hook',
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
    await app.inject({
      method: 'PUT',
      url,
      headers: session,
      payload: { url: 'https://example.com', events: ['nope'] },
    }),
    'INVALID_INPUT',
  );
  assertError(t, await app.inject({ method: 'GET', url }), 'UNAUTHORIZED');
});
