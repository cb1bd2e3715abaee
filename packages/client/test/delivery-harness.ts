import { type BuildOptions, buildApp } from '@webpush/api/app';
import { createPushSender } from '@webpush/push';
import { deliveryHarnessFor } from '@webpush/testing';
import { type RunningWorker, startWorker, type WorkerDeps } from '@webpush/worker/worker';

/** The real API and a real worker for the client's end-to-end test, delivering to the push stand-in. */
export const deliveryHarness = deliveryHarnessFor<BuildOptions, WorkerDeps, RunningWorker>({
  buildApp,
  startWorker,
  createPushSender,
});
