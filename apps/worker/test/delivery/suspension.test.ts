import { bearer, quietFor, registerUser, startWebhookReceiver, uniqueEmail, waitFor } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// Suspending an account stops its sending: its scheduled send ends `canceled`, its send in progress
// stops at the next chunk and ends `failed` with ACCOUNT_SUSPENDED, no webhook is delivered for it,
// and lifting the suspension sends nothing that was stopped.
const receiver = await startWebhookReceiver();
t.teardown(() => receiver.close());
const CHUNK_SIZE = 2;
const SUBSCRIBERS = 10;
const harness = await deliveryHarness(t, {
  DELIVERY_CHUNK_SIZE: String(CHUNK_SIZE),
  PUSH_CONCURRENCY: '1',
  WORKER_DELIVERY_CONCURRENCY: '1',
  SCHEDULER_INTERVAL_MS: '100',
  WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
  WEBHOOK_BACKOFF_MS: '50',
  WEBHOOK_RELAY_INTERVAL_MS: '100',
  WEBHOOK_RELAY_STALE_MS: '1000',
});
const { app, push } = harness;
const sql = harness.database.sql;
await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });

const operator = await registerUser(app, uniqueEmail('operator'));
await sql`update users set role = 'operator', email_verified = true where id = ${operator.user.id}`;
const suspension = (userId: string, method: 'PUT' | 'DELETE') =>
  app.inject({
    method,
    url: `/api/v1/operator/tenants/${userId}/suspension`,
    headers: bearer(operator.token),
  });

const notificationRow = async (id: string) => {
  const [row] = await sql<{ status: string; error_code: string | null }[]>`
    select status, error_code from notifications where id = ${id}`;
  return row;
};

t.test('suspension stops a send in progress and a scheduled send, with no webhook, for good', async (t) => {
  const owner = await harness.owner();
  const hook = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}/suspended`, events: ['notification.completed', 'notification.failed'] },
  });
  t.equal(hook.statusCode, 200);
  receiver.expect('/suspended', (hook.json() as { webhook: { secret: string } }).webhook.secret);

  const subscriptions = await harness.subscribe(owner, SUBSCRIBERS);
  // A slow push service: each push takes 300 ms, so the send is still under way when suspended.
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201, delayMs: 300 });
  const scheduled = await harness.notify(owner, {
    title: 'Later',
    body: 'scheduled',
    sendAt: new Date(Date.now() + 1_500).toISOString(),
  });
  const running = await harness.notify(owner, { title: 'Now', body: 'in progress' });
  await push.waitForMessages(1, 10_000);

  const suspended = await suspension(owner.user.user.id, 'PUT');
  t.equal(suspended.statusCode, 200);
  const pushedAtSuspension = push.received.length;
  t.ok(pushedAtSuspension < SUBSCRIBERS, `suspended while sending (${pushedAtSuspension} pushed)`);

  t.strictSame(await notificationRow(scheduled.id), { status: 'canceled', error_code: null });
  t.strictSame(await notificationRow(running.id), { status: 'failed', error_code: 'ACCOUNT_SUSPENDED' });

  // At most the chunk under way finishes; no other chunk, and not the scheduled send, is pushed.
  await quietFor(2_500, 'no more than the chunk under way pushed', () => {
    return push.received.length <= pushedAtSuspension + CHUNK_SIZE;
  });
  const pushedWhileSuspended = push.received.length;
  t.ok(pushedWhileSuspended < SUBSCRIBERS, `the send stopped (${pushedWhileSuspended} of ${SUBSCRIBERS} pushed)`);
  t.strictSame(await notificationRow(running.id), { status: 'failed', error_code: 'ACCOUNT_SUSPENDED' }, 'still');
  const [pending] = await sql`select count(*)::int as n from webhook_messages
    where app_id = ${owner.app.id} and status = 'pending'`;
  t.equal(pending?.n, 0, 'no webhook event waits');
  t.equal(receiver.requestsTo('/suspended').length, 0, 'no webhook arrived');

  const resumed = await suspension(owner.user.user.id, 'DELETE');
  t.equal(resumed.statusCode, 200);
  await quietFor(1_500, 'nothing stopped is sent after the suspension is lifted', () => {
    return push.received.length === pushedWhileSuspended && receiver.requestsTo('/suspended').length === 0;
  });
  t.strictSame(await notificationRow(scheduled.id), { status: 'canceled', error_code: null });
  t.strictSame(await notificationRow(running.id), { status: 'failed', error_code: 'ACCOUNT_SUSPENDED' });
  const status = await harness.status(owner, running.id);
  t.equal(status.status, 'failed');
  t.equal((status as { errorCode?: string }).errorCode, 'ACCOUNT_SUSPENDED', 'the API shows why');

  // The account works again: a new send goes out, and its webhook arrives.
  const after = await harness.notify(owner, { title: 'Back', body: 'again' });
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201 });
  await waitFor(async () => (await notificationRow(after.id))?.status === 'completed', 'the new send completed');
  await receiver.waitFor('/suspended', 1, 10_000);
});
