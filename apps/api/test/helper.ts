import { testAppBuilder } from '@webpush/testing';
import { type BuildOptions, buildApp } from '../src/app.js';

// Building the API for a test, users, apps and keys are shared with the other apps' tests
// (@webpush/testing); this binds them to this app's `buildApp`.
export {
  bearer,
  createApp,
  createKey,
  fakeSubscription,
  ownerWithKey,
  planDelivery,
  registerUser,
  type TestContext,
  uniqueEmail,
} from '@webpush/testing';

/** The API on its own database and Redis prefix; closed and dropped when the test ends. */
export const buildTestApp = testAppBuilder<BuildOptions>(buildApp);
