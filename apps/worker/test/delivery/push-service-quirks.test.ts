import { bearer } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness, subscribeWithAnotherAppsKey } from '../helper.js';

// What Apple's push service (web.push.apple.com) answers, as its stand-in mode does, and how a send
// records why its pushes failed (`failureReasons` on the notification). Apple's documentation:
// https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers
// The test configuration's PUBLIC_URL is http://localhost:3000, so the default VAPID subject is
// mailto:admin@localhost: the one Apple refuses (web-push-libs/web-push#947).
const harness = await deliveryHarness(t, {}, { service: 'apple' });
const { app, push, config } = harness;

t.test('Apple refuses a localhost VAPID subject: 403 BadJwtToken, counted as the reason', async (t) => {
  t.equal(config.vapidSubject, 'mailto:admin@localhost');
  const worker = await harness.startInProcessWorker();
  const owner = await harness.owner();
  await harness.subscribe(owner, 2);
  const { id } = await harness.notify(owner, { title: 'Hello', body: 'Safari' });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'failed', targets: 2, sent: 0, failed: 2 });
  t.strictSame(done.failureReasons, { '403 BadJwtToken': 2 }, 'the status and Apple’s reason');
  t.ok(push.protocolErrors.every((error) => /JWT sub mailto:admin@localhost/.test(error.reason)));

  // The same subscriptions with a subject Apple accepts.
  await worker.close();
  const before = push.protocolErrors.length;
  await harness.startInProcessWorker({ config: { ...config, vapidSubject: 'mailto:push@company.jp' } });
  const again = await harness.notify(owner, { title: 'Hello again', body: 'Safari' });
  const sent = await harness.finished(owner, again.id);
  t.match(sent, { status: 'completed', sent: 2, failed: 0 });
  t.equal(sent.failureReasons, undefined, 'absent when nothing failed');
  t.equal(push.protocolErrors.length, before, 'accepted');
});

t.test('a push signed with another key than the subscription’s: 400 VapidPkHashMismatch', async (t) => {
  await harness.startInProcessWorker({ config: { ...config, vapidSubject: 'mailto:push@company.jp' } });
  const owner = await harness.owner();
  // The browser subscribed with another app's key, but the subscription was stored with this app.
  await subscribeWithAnotherAppsKey(t, harness, owner);
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Mismatch', body: 'One of two' });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', targets: 2, sent: 1, failed: 1 });
  t.strictSame(done.failureReasons, { '400 VapidPkHashMismatch': 1 });

  const listed = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/notifications`,
    headers: bearer(owner.user.token),
  });
  const [first] = (listed.json() as { notifications: { id: string; failureReasons: object }[] }).notifications;
  t.strictSame(first?.failureReasons, { '400 VapidPkHashMismatch': 1 }, 'in the history too');
});
