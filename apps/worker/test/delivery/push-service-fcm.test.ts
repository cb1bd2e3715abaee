import t from 'tap';
import { deliveryHarness, subscribeWithAnotherAppsKey } from '../helper.js';

// FCM (Chrome), as the stand-in's `fcm` mode answers from Google's documentation: "Common Issues and
// Reporting Bugs" https://web.dev/articles/push-notifications-common-issues-and-reporting-bugs (any
// VAPID problem, a subscription made with another key included, is 400 UnauthorizedRegistration;
// 429 carries Retry-After) and "Best practices when sending FCM messages at scale"
// https://firebase.google.com/docs/cloud-messaging/scale-fcm (429 with retry-after).
const harness = await deliveryHarness(t, {}, { service: 'fcm' });
const { push, database } = harness;
await harness.startInProcessWorker();

t.test('429 with Retry-After: the push waits that long, then is sent', async (t) => {
  const owner = await harness.owner();
  const [slow, other] = await harness.subscribe(owner, 2);
  if (!slow || !other) throw new Error('no subscriptions');
  push.script(slow.id, { status: 429, retryAfter: '2' });
  const { id } = await harness.notify(owner, { title: 'Busy', body: 'FCM' });
  const done = await harness.finished(owner, id, 30_000);
  t.match(done, { status: 'completed', targets: 2, sent: 2, failed: 0, expired: 0 });
  t.equal(done.failureReasons, undefined, 'a retry that succeeded is no failure');
  const [first, second] = push.received.filter((message) => message.subscriptionId === slow.id);
  t.equal(first?.status, 429);
  t.equal(second?.status, 201);
  const waited = (second?.at ?? 0) - (first?.at ?? 0);
  t.ok(waited >= 1_950, `the retry waited ${waited} ms for Retry-After: 2`);
  t.equal(push.deliveredTo(other.id).length, 1, 'the other push did not wait');
});

t.test(
  'a subscription made with another VAPID key: 400 UnauthorizedRegistration, failed with that reason',
  async (t) => {
    const owner = await harness.owner();
    const subscription = await subscribeWithAnotherAppsKey(t, harness, owner);
    await harness.subscribe(owner, 1);
    const { id } = await harness.notify(owner, { title: 'Mismatch', body: 'One of two' });
    const done = await harness.finished(owner, id);
    t.match(done, { status: 'completed', targets: 2, sent: 1, failed: 1, expired: 0 });
    t.strictSame(done.failureReasons, { '400 UnauthorizedRegistration': 1 }, 'the reason read from FCM’s HTML title');
    t.match(push.protocolErrors.at(-1)?.reason ?? '', /another VAPID key/);
    const [row] = await database.sql<{ status: string }[]>`
    select status from subscriptions where endpoint = ${subscription.endpoint}`;
    t.equal(row?.status, 'active', 'a VAPID refusal is not counted against the subscription');
  },
);
