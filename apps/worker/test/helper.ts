import { type BuildOptions, buildApp } from '@webpush/api/app';
import { createPushSender } from '@webpush/push';
import { deliveryHarnessFor, type DeliveryHarness as SharedDeliveryHarness, testAppBuilder } from '@webpush/testing';
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
