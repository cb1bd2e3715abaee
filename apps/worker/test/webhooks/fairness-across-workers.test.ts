import { bearer, startWebhookReceiver, waitForValue } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// Two worker processes on the same queues (two in-process workers: each has its own Redis
// connection and its own fairness): an app's slots are counted across both, so a slow receiver
// sees at most WEBHOOK_APP_CONCURRENCY requests at once, not that many per worker.
const APP_CONCURRENCY = 2;
const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());
const harness = await deliveryHarness(t, {
  WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
  WEBHOOK_APP_CONCURRENCY: String(APP_CONCURRENCY),
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_RELAY_INTERVAL_MS: '100',
});
const { app } = harness;
const sql = harness.database.sql;
await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });
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

t.test("a slow receiver gets at most the app's slots at once from two workers together", async (t) => {
  const owner = await harness.owner();
  const other = await harness.owner();
  await setWebhook(owner, '/slow');
  await setWebhook(other, '/other');
  const EVENTS = 12;
  receiver.script('/slow', { status: 200, delayMs: 400, times: EVENTS });
  // Sends to nobody complete at once, each with a notification.completed for the slow receiver.
  for (let i = 0; i < EVENTS; i++) await harness.notify(owner, { title: `E${i}`, body: 'slow' });
  await receiver.waitFor('/slow', APP_CONCURRENCY);

  // Another app's event goes out while the slow app holds every one of its slots.
  await harness.notify(other, { title: 'other', body: 'not held' });
  await receiver.waitFor('/other', 1, 10_000);

  const requests = await receiver.waitFor('/slow', EVENTS, 60_000);
  t.equal(new Set(requests.map((request) => request.webhookId)).size, EVENTS, 'each event once');
  t.equal(receiver.peakInFlight('/slow'), APP_CONCURRENCY, 'never more than the app’s slots at once');
  const rows = await waitForValue(
    () => sql`select status, attempts from webhook_messages where app_id = ${owner.app.id}`,
    (rows) => rows.length === EVENTS && rows.every((row) => row.status === 'delivered'),
    'every event is recorded as delivered',
  );
  t.ok(
    rows.every((row) => row.attempts === 1),
    'a delivery held back for its app’s slots spends no attempt',
  );
});
