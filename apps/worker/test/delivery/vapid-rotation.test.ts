import { assertError, bearer } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, type Owner } from '../helper.js';

// VAPID key rotation end to end (docs/sending.md, "Rotating the VAPID key"): the stand-in binds each
// subscription to the key it was made with, as a browser's push service does, and refuses (as a
// protocol error) a push signed with any other. Chunks of two, so one send spans both keys' chunks.
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '2' });
const { app, push } = harness;
const sql = harness.database.sql;
const worker = await harness.startInProcessWorker();

const rotate = async (owner: Owner) => {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/vapid-key/rotate`,
    headers: bearer(owner.user.token),
  });
  if (response.statusCode !== 200) throw new Error(`rotate: ${response.statusCode} ${response.body}`);
  return (response.json() as { app: { vapidPublicKey: string } }).app.vapidPublicKey;
};

/** A stand-in subscription made with `key`, stored through the API (with or without telling the key). */
const subscribeWith = async (owner: Owner, key: string, tell = true) => {
  const subscription = push.subscribe({ applicationServerKey: key });
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: {
      endpoint: subscription.endpoint,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
      ...(tell ? { applicationServerKey: key } : {}),
    },
  });
  if (response.statusCode !== 201 && response.statusCode !== 200)
    throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
  return subscription;
};

const keysOfPushes = (notificationId: string) => {
  const keys = new Map<string, string>();
  for (const message of push.received) {
    if ((JSON.parse(message.payload) as { id: string }).id === notificationId)
      keys.set(message.subscriptionId, message.vapidPublicKey);
  }
  return keys;
};

t.test('every subscription is pushed with the key it was made with, before and after rotations', async (t) => {
  const owner = await harness.owner();
  const first = owner.app.vapidPublicKey;
  const old = [await subscribeWith(owner, first, false), await subscribeWith(owner, first)];

  const before = await harness.notify(owner, { title: 'Before', body: 'Hello' });
  t.match(await harness.finished(owner, before.id), { status: 'completed', sent: 2, failed: 0 });
  t.strictSame(keysOfPushes(before.id), new Map(old.map((s) => [s.id, first])), 'signed with the only key there is');

  const second = await rotate(owner);
  t.not(second, first);
  const made = [await subscribeWith(owner, second), await subscribeWith(owner, second, false)];
  // A browser that subscribed from a page still holding the first key: it says so.
  const late = await subscribeWith(owner, first);
  const after = await harness.notify(owner, { title: 'After', body: 'Hello' });
  t.match(await harness.finished(owner, after.id), { status: 'completed', targets: 5, sent: 5, failed: 0 });
  t.strictSame(
    keysOfPushes(after.id),
    new Map([...old.map((s) => [s.id, first] as const), ...made.map((s) => [s.id, second] as const), [late.id, first]]),
    'each with its own key',
  );

  const third = await rotate(owner);
  const newest = await subscribeWith(owner, third);
  const again = await harness.notify(owner, { title: 'Three keys', body: 'Hello' });
  t.match(await harness.finished(owner, again.id), { status: 'completed', targets: 6, sent: 6, failed: 0 });
  const keys = keysOfPushes(again.id);
  t.equal(keys.get(newest.id), third);
  t.equal(keys.get(made[0]?.id ?? ''), second);
  t.equal(keys.get(old[0]?.id ?? ''), first);
  t.strictSame(push.protocolErrors, [], 'the stand-in refused no push');
});

t.test('a retired key is deleted once no active subscription uses it', async (t) => {
  const owner = await harness.owner();
  const first = owner.app.vapidPublicKey;
  const browser = await subscribeWith(owner, first);
  const second = await rotate(owner);
  const retired = async () =>
    (await sql`select public_key from retired_vapid_keys where app_id = ${owner.app.id}`).map((r) => r.public_key);
  // Retired keys are kept for an hour whatever happens; this test looks past that.
  const age = () =>
    sql`update retired_vapid_keys set retired_at = now() - interval '2 hours' where app_id = ${owner.app.id}`;

  t.strictSame(await retired(), [first]);
  await worker.retiredVapidKeyCleanup.runOnce();
  t.strictSame(await retired(), [first], 'kept within its first hour');
  await age();
  await worker.retiredVapidKeyCleanup.runOnce();
  t.strictSame(await retired(), [first], 'kept while a subscription uses it');

  // The SDK subscribes the browser again with the current key (a new endpoint, as a browser's is).
  const moved = await subscribeWith(owner, second);
  await app.inject({
    method: 'DELETE',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: browser.endpoint },
  });
  t.equal(await worker.retiredVapidKeyCleanup.runOnce(), 1);
  t.strictSame(await retired(), [], 'deleted');

  const sent = await harness.notify(owner, { title: 'Still fine', body: 'Hello' });
  t.match(await harness.finished(owner, sent.id), { status: 'completed', targets: 1, sent: 1 });
  t.equal(keysOfPushes(sent.id).get(moved.id), second);
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: bearer(owner.secret),
      payload: { ...push.subscribe(), applicationServerKey: first },
    }),
    'INVALID_INPUT',
  );
  t.strictSame(push.protocolErrors, []);
});
