import { type BuildOptions, buildApp } from '@webpush/api/app';
import { createPushSender } from '@webpush/push';
import {
  bearer,
  deliveryHarnessFor,
  type Owner,
  type DeliveryHarness as SharedDeliveryHarness,
  testAppBuilder,
} from '@webpush/testing';
import type { Test } from 'tap';
import { type RunningWorker, startWorker, type WorkerDeps } from '../src/worker.js';

// The delivery harness is shared with other tests (@webpush/testing); this binds it to the API's
// `buildApp` and this worker's `startWorker`.
export { type NotificationStatus, type Owner, unknownToPushService } from '@webpush/testing';

export type DeliveryHarness = SharedDeliveryHarness<WorkerDeps, RunningWorker>;

export const deliveryHarness = deliveryHarnessFor<BuildOptions, WorkerDeps, RunningWorker>({
  buildApp,
  startWorker,
  createPushSender,
});

/** The API alone, for worker tests that need no push stand-in. */
export const buildTestApp = testAppBuilder<BuildOptions>(buildApp);

/**
 * A browser subscription made with ANOTHER app's VAPID key but stored for `owner` through
 * POST /subscribe (a page that mixed up its apps): every push to it is signed with the wrong key,
 * which each push service answers in its own way. Fails the test unless the subscribe is a 201.
 */
export async function subscribeWithAnotherAppsKey(t: Test, harness: DeliveryHarness, owner: Owner) {
  const other = await harness.owner();
  const subscription = harness.push.subscribe({ applicationServerKey: other.app.vapidPublicKey });
  const stored = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
  });
  t.equal(stored.statusCode, 201, 'stored although made with another key');
  return subscription;
}
