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
  revokeKey,
  subscribe,
  type TestContext,
  uniqueEmail,
} from '@webpush/testing';

/** The API on its own database and Redis prefix; closed and dropped when the test ends. */
export const buildTestApp = testAppBuilder<BuildOptions>(buildApp);

/**
 * For the round-trip tests, which count the statements a request sends: true for the ones that are
 * not the request's own. The record of an API key's use is written beside the request, not waited
 * on. postgres.js looks up the array types once on each new pool connection, before its first
 * query: whether a request opens a connection depends on what else holds the pool at that moment
 * (that same record, for one), not on the route.
 */
export const notTheRequestsOwn = (query: string): boolean =>
  /^\s*update api_keys set last_used_at/i.test(query) || /\bfrom pg_catalog\.pg_type\b/i.test(query);
