import { bearer, startMailServer, startWebhookReceiver, waitFor } from '@webpush/testing';
import t from 'tap';
import { shortWebhookError } from '../../src/webhooks/deliver-webhook.js';
import { deliveryHarness, type Owner } from '../helper.js';

// The circuit breaker as the owner sees it: a receiver that fails pauses the webhook (on its row,
// shared by every worker and shown by the API) with the last error, a streak longer than
// WEBHOOK_DISABLE_AFTER_MS disables it, nothing more is sent, and resuming sends what was held.
const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());
const mail = await startMailServer();
t.teardown(() => mail.close());
const harness = await deliveryHarness(t, {
  ...mail.env,
  WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
  WEBHOOK_MAX_ATTEMPTS: '30',
  WEBHOOK_BACKOFF_MS: '50',
  WEBHOOK_BREAKER_FAILURES: '2',
  WEBHOOK_BREAKER_PAUSE_MS: '400',
  WEBHOOK_DISABLE_AFTER_MS: '1500',
  WEBHOOK_RELAY_INTERVAL_MS: '100',
  WEBHOOK_RELAY_STALE_MS: '1000',
});
const { app } = harness;
const sql = harness.database.sql;
const worker = await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });

interface WebhookState {
  status: string;
  failuresInARow: number;
  pausedUntil: string | null;
  failingSince: string | null;
  lastError: { reason: string; status: number | null; at: string } | null;
  disabledAt: string | null;
}

async function webhook(owner: Owner): Promise<WebhookState> {
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
  });
  if (response.statusCode !== 200) throw new Error(`GET webhook: ${response.statusCode} ${response.body}`);
  return response.json<{ webhook: WebhookState }>().webhook;
}

async function until(owner: Owner, what: string, done: (state: WebhookState) => boolean): Promise<WebhookState> {
  let state = await webhook(owner);
  await waitFor(async () => {
    state = await webhook(owner);
    return done(state);
  }, what);
  return state;
}

const messages = (owner: Owner) =>
  sql<{ id: string; status: string; queuedAt: Date | null }[]>`
    select id, status, queued_at as "queuedAt" from webhook_messages where app_id = ${owner.app.id}
    order by created_at`;

t.test('a failing receiver is paused, then disabled; nothing is sent until resumed; then all is', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/failing';
  const put = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}${path}`, events: ['notification.completed'] },
  });
  t.equal(put.statusCode, 200);
  receiver.expect(path, put.json<{ webhook: { secret: string } }>().webhook.secret);
  receiver.script(path, { status: 500, body: 'stack trace with db password=hunter2', times: 1_000 });

  // A send to nobody completes at once: its notification.completed goes to the failing receiver.
  await harness.notify(owner, { title: 'first', body: 'held' });

  const paused = await until(owner, 'the webhook is paused', (state) => state.status === 'paused');
  t.ok(paused.failuresInARow >= 2, `${paused.failuresInARow} failures in a row`);
  t.match(paused, { lastError: { reason: 'HTTP 500', status: 500 }, disabledAt: null });
  t.ok(Date.parse(paused.pausedUntil ?? '') > Date.parse(paused.lastError?.at ?? ''), 'resumes after the failure');
  t.notOk(JSON.stringify(paused).includes('hunter2'), "the receiver's answer is not shown");
  const [row] = await sql`select paused_until, failing_since from webhooks where app_id = ${owner.app.id}`;
  t.ok(row?.paused_until && row.failing_since, 'on the row every worker reads');

  const disabled = await until(owner, 'the webhook is disabled', (state) => state.status === 'disabled');
  t.match(disabled, { pausedUntil: null, lastError: { reason: 'HTTP 500' }, disabledAt: /^\d{4}-/ });
  t.ok(
    Date.parse(disabled.disabledAt ?? '') - Date.parse(disabled.failingSince ?? '') >= 1_500,
    'disabled once the streak outlasted WEBHOOK_DISABLE_AFTER_MS',
  );
  const sentBefore = receiver.requestsTo(path).length;

  // The owner is told, once, in the account's language.
  const [account] = await sql`select language from users where id = ${owner.user.user.id}`;
  const subject =
    account?.language === 'en'
      ? 'Webhook deliveries of "Test app" are disabled'
      : '「Test app」の Webhook 配信を停止しました';
  const disabledMail = (received: { parsed: { subject?: string } }) => received.parsed.subject === subject;
  const notice = await mail.waitFor(owner.user.email, { matching: disabledMail });
  t.match(notice.text, /HTTP 500/);
  t.match(notice.text, new RegExp(`/apps/${owner.app.id}/settings`));
  t.notMatch(notice.text, /hunter2/, "never the receiver's answer");

  // While disabled: a new event is kept, pending, and nothing goes out, however often the relay runs.
  await harness.notify(owner, { title: 'second', body: 'held' });
  await waitFor(async () => (await messages(owner)).length === 2, 'the second event is written');
  for (let pass = 0; pass < 3; pass++) await worker.webhooks.relayOnce();
  const held = await messages(owner);
  t.strictSame(
    held.map((message) => message.status),
    ['pending', 'pending'],
    'both events kept, pending',
  );
  t.equal(held[1]?.queuedAt, null, 'the new event was never queued');
  t.equal(receiver.requestsTo(path).length, sentBefore, 'no request while disabled');

  // The owner fixes the receiver and resumes: both events arrive, and the webhook is active again.
  receiver.unscript(path);
  const resumed = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/webhook/resume`,
    headers: bearer(owner.user.token),
  });
  t.equal(resumed.statusCode, 200);
  t.match(resumed.json(), { webhook: { status: 'active', failuresInARow: 0, disabledAt: null } });
  await waitFor(
    async () => (await messages(owner)).every((message) => message.status === 'delivered'),
    'both held events are delivered',
  );
  const delivered = receiver.requestsTo(path).slice(sentBefore);
  t.strictSame(
    new Set(delivered.filter((request) => request.verifyError === null).map((request) => request.webhookId)),
    new Set(held.map((message) => message.id)),
    'each held event arrived, signed, under its own webhook-id',
  );
  t.match(await webhook(owner), { status: 'active', failuresInARow: 0, failingSince: null, disabledAt: null });
  t.equal(mail.to(owner.user.email, disabledMail).length, 1, 'one notice for one disabling');
});

t.test('a worker that never saw the failures (restarted, or another one) honours the pause on the row', async (t) => {
  const owner = await harness.owner();
  const path = '/hooks/recovered';
  const put = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}${path}`, events: ['notification.completed'] },
  });
  receiver.expect(path, put.json<{ webhook: { secret: string } }>().webhook.secret);
  // What another worker wrote before this one started: paused for ten minutes.
  await sql`update webhooks set failures_in_a_row = 5, paused_until = now() + interval '10 minutes',
    failing_since = now() - interval '5 minutes', last_error_reason = 'timeout', last_error_at = now()
    where app_id = ${owner.app.id}`;
  await harness.notify(owner, { title: 'during the pause', body: 'waits' });
  await waitFor(async () => (await messages(owner)).length === 1, 'the event is written');
  const [event] = await messages(owner);
  const id = event?.id ?? '';
  await waitFor(
    async () => (await app.queues.webhooks.getJobState(id)) === 'delayed',
    'the delivery is put off until the pause ends',
  );
  t.equal(receiver.requestsTo(path).length, 0, 'nothing sent to a paused receiver');
  t.match(await webhook(owner), { status: 'paused', lastError: { reason: 'timeout' } });

  const resumed = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/webhook/resume`,
    headers: bearer(owner.user.token),
  });
  t.equal(resumed.statusCode, 200);
  const [request] = await receiver.waitFor(path, 1);
  t.equal(request?.webhookId, id, 'the held event goes out at once on resume');
  await waitFor(async () => (await messages(owner))[0]?.status === 'delivered', 'the event is delivered');
});

t.test('the last error is short: a status or a kind of failure, never an address or an answer', async (t) => {
  const cases: [number | null, string | null, string][] = [
    [503, null, 'HTTP 503'],
    [null, 'timed out after 10000 ms', 'timeout'],
    [null, 'UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (attempted address: 203.0.113.9:443)', 'timeout'],
    [null, 'ECONNREFUSED: connect ECONNREFUSED 203.0.113.9:443', 'connection refused'],
    [null, 'ECONNRESET: read ECONNRESET', 'connection reset'],
    [null, 'EREFUSEDADDRESS: hooks.example.com resolves to no public address', 'address not allowed'],
    [null, 'refused URL: refused_address', 'address not allowed'],
    [null, 'ENOTFOUND: queryA ENOTFOUND hooks.example.com', 'DNS lookup failed'],
    [null, 'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate', 'TLS error'],
    [null, 'something else entirely', 'connection error'],
  ];
  for (const [status, error, expected] of cases) t.equal(shortWebhookError({ status, error }), expected, String(error));
});
