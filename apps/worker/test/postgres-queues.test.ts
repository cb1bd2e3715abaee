import { bearer, startWebhookReceiver, waitForValue } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from './helper.js';

// QUEUE_BACKEND=postgres: the same API and worker with every queue in BullMQ's PostgreSQL backend,
// in the test's own database (schema bullmq_<prefix>), no Redis queue anywhere.
const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());
const harness = await deliveryHarness(t, {
  QUEUE_BACKEND: 'postgres',
  WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
  WEBHOOK_BACKOFF_MS: '50',
  WEBHOOK_APP_CONCURRENCY: '1',
  WEBHOOK_RELAY_INTERVAL_MS: '100',
});
const { app, push } = harness;
const sql = harness.database.sql;
await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });

async function setWebhook(owner: Owner, path: string) {
  const response = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}${path}`, events: ['notification.completed'] },
  });
  if (response.statusCode !== 200) throw new Error(`PUT webhook: ${response.statusCode} ${response.body}`);
  receiver.expect(path, response.json<{ webhook: { secret: string } }>().webhook.secret);
}

t.test('the queues live in PostgreSQL: a push is delivered and decrypted', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Over PostgreSQL', body: 'queued in the database' });
  t.equal((await harness.finished(owner, id)).status, 'completed');
  const [message] = push.deliveredTo(subscription?.id ?? '');
  t.match(JSON.parse(message?.payload ?? '{}'), { title: 'Over PostgreSQL' });
  const [schema] = await sql`select count(*)::int as tables from information_schema.tables
    where table_schema like 'bullmq_%'`;
  t.ok((schema?.tables ?? 0) > 0, "BullMQ's tables were made by its migrations at start");
});

t.test('a webhook answered 429 is tried again and delivered', async (t) => {
  const owner = await harness.owner();
  await setWebhook(owner, '/busy');
  receiver.script('/busy', { status: 429, body: 'slow down', times: 2 });
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Retry', body: 'me' });
  await harness.finished(owner, id);
  const requests = await receiver.waitFor('/busy', 3);
  t.equal(new Set(requests.map((request) => request.webhookId)).size, 1, 'one event, three attempts');
  const [row] = await waitForValue(
    () => sql`select status, attempts from webhook_messages where app_id = ${owner.app.id}`,
    ([message]) => message?.status !== 'pending',
    'the event is recorded as delivered',
  );
  t.match(row, { status: 'delivered', attempts: 3 });
});

t.test('deliveries deferred for fairness, with two workers on the queue, are all made once, none lost', async (t) => {
  // A second worker: the case where moveToDelayed + DelayedError misbehaves on this backend.
  await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });
  const owner = await harness.owner();
  await setWebhook(owner, '/slow');
  const EVENTS = 6;
  // One slot per app, and each answer takes a while: most events wait their turn.
  receiver.script('/slow', { status: 200, delayMs: 150, times: EVENTS });
  for (let i = 0; i < EVENTS; i++) await harness.notify(owner, { title: `E${i}`, body: 'no target' });
  const requests = await receiver.waitFor('/slow', EVENTS, 20_000);
  t.equal(new Set(requests.map((request) => request.webhookId)).size, EVENTS, 'each event once');
  // The app's one slot is counted across both workers (in PostgreSQL, as the queues are).
  t.equal(receiver.peakInFlight('/slow'), 1, 'one request at a time, not one per worker');
  const rows = await waitForValue(
    () => sql`select status, attempts from webhook_messages where app_id = ${owner.app.id}`,
    (list) => list.every((row) => row.status !== 'pending'),
    'every event is recorded',
  );
  t.equal(rows.length, EVENTS);
  t.strictSame(
    rows.map((row) => [row.status, row.attempts]),
    Array.from({ length: EVENTS }, () => ['delivered', 1]),
    'every event delivered with one attempt: a deferral spends none',
  );
});
