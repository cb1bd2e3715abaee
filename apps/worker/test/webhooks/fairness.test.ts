import { bearer, startWebhookReceiver, type WebhookReceiver } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// One app's receiver that never answers must not delay another app's webhooks. Each app has its
// own receiver (its own host:port, so its own connections), and the delivery settings are the
// defaults: 10 s per attempt, 10 deliveries at once per worker.
const tarpit = await startWebhookReceiver();
t.teardown(() => tarpit.close());
const healthy = await startWebhookReceiver({ cert: tarpit.caPem, key: tarpit.keyPem });
t.teardown(() => healthy.close());
const harness = await deliveryHarness(t, {
  WEBHOOK_ALLOWED_HOSTS: `${tarpit.hostRule},${healthy.hostRule}`,
  WEBHOOK_RELAY_INTERVAL_MS: '100',
});
const { app } = harness;
await harness.startInProcessWorker({ deps: { webhookCa: tarpit.caPem } });

async function setWebhook(owner: Owner, receiver: WebhookReceiver, path: string) {
  const response = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}${path}`, events: ['notification.completed'] },
  });
  if (response.statusCode !== 200) throw new Error(`PUT webhook: ${response.statusCode} ${response.body}`);
  receiver.expect(path, response.json<{ webhook: { secret: string } }>().webhook.secret);
}

t.test("a receiver that never answers delays no other app's notification.completed", async (t) => {
  const appA = await harness.owner();
  const appB = await harness.owner();
  await setWebhook(appA, tarpit, '/a');
  await setWebhook(appB, healthy, '/b');
  const HUNG_EVENTS = 40;
  tarpit.script('/a', { status: 200, delayMs: 3_600_000, times: 1_000 });

  // App A: sends to nobody complete at once, each with a notification.completed for the tarpit;
  // more events than the worker runs at once, so a shared line would hold B's behind them.
  for (let i = 0; i < HUNG_EVENTS; i++) await harness.notify(appA, { title: `A${i}`, body: 'tarpit' });
  await tarpit.waitFor('/a', 2);

  await harness.subscribe(appB, 1);
  const { id } = await harness.notify(appB, { title: 'B', body: 'healthy' });
  const finished = await harness.finished(appB, id);
  t.equal(finished.status, 'completed');
  const completedAt = Date.parse(finished.completedAt ?? '');

  const [request] = await healthy.waitFor('/b', 1, 10_000);
  const lateness = Date.now() - completedAt;
  const [hung] = await harness.database
    .sql`select count(*)::int as n from webhook_attempts where app_id = ${appA.app.id}`;
  t.equal(hung?.n, 0, "B's event did not wait for any of A's attempts to time out");
  t.ok(lateness < 10_000, `B's event arrived ${lateness} ms after B completed`);
  t.equal(request?.verifyError, null);
  t.match(JSON.parse(request?.body ?? '{}'), { type: 'notification.completed', data: { id } });
  t.equal(tarpit.requestsTo('/a').length, 2, 'A holds only its own two slots');
});
