import t from 'tap';
import {
  bytesOf,
  type FakePushState,
  launchChromium,
  newKeys,
  openPage,
  startApi,
  startSite,
  storedSubscription,
} from './harness.js';

/*
 * A customer's site on one origin subscribes a visitor through the real API on another: the
 * script-tag SDK, its service worker, CORS on /vapid-public-key and /subscribe, the errors a site sees.
 */

interface SdkFailure {
  name: string;
  reason: string;
  code: string | null;
  status: number | null;
}

type WebPushGlobal = {
  subscribe(
    options: Record<string, string>,
  ): Promise<{ subscriberId: string; created: boolean; subscription: { endpoint: string } }>;
  unsubscribe(options?: Record<string, string>): Promise<boolean>;
  getState(options?: Record<string, string>): Promise<string>;
};
declare const WebPush: WebPushGlobal;

const browser = await launchChromium(t);
if (browser) {
  const started = Date.now();
  const [api, site] = await Promise.all([startApi(t), startSite(t)]);
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const keys = newKeys();
  const page = await openPage(context, site, [keys]);
  await page.goto(`${site}/`);

  /** Calls the SDK in the page and returns its WebPushError's fields (or null when it succeeded). */
  const failureOf = (options: Record<string, string>) =>
    page.evaluate(
      (options) =>
        WebPush.subscribe(options).then(
          () => null,
          (error: { name: string; reason: string; code?: string; status?: number }) => ({
            name: error.name,
            reason: error.reason,
            code: error.code ?? null,
            status: error.status ?? null,
          }),
        ),
      options,
    ) as Promise<SdkFailure | null>;

  await t.test('the page is on another origin than the API', async (t) => {
    t.not(new URL(site).origin, new URL(api.url).origin);
    t.equal(await page.evaluate(() => window.isSecureContext), true);
    t.equal(await page.evaluate(() => Notification.permission), 'granted');
    t.equal(await page.evaluate(() => WebPush.getState()), 'unsubscribed');
  });

  await t.test('GET /vapid-public-key answers a cross-origin fetch with an Authorization header', async (t) => {
    const answer = await page.evaluate(
      async ({ url, key }) => {
        const response = await fetch(`${url}/api/v1/vapid-public-key`, { headers: { authorization: `Bearer ${key}` } });
        return { status: response.status, body: await response.json() };
      },
      { url: api.url, key: api.apiKey },
    );
    t.same(answer, { status: 200, body: { vapidPublicKey: api.vapidPublicKey } });
  });

  await t.test('errors reach the site typed, with the API code readable across origins', async (t) => {
    const scope = { serviceWorkerUrl: '/errors/sw.js' };
    t.same(await failureOf({ ...scope, baseUrl: api.url, apiKey: 'wpk_not_a_real_key' }), {
      name: 'WebPushError',
      reason: 'api',
      code: 'INVALID_API_KEY',
      status: 401,
    });
    t.same(await failureOf({ ...scope, baseUrl: 'http://127.0.0.1:9', apiKey: api.apiKey }), {
      name: 'WebPushError',
      reason: 'network',
      code: null,
      status: null,
    });
    t.same(await failureOf({ serviceWorkerUrl: '/missing-worker.js', baseUrl: api.url, apiKey: api.apiKey }), {
      name: 'WebPushError',
      reason: 'service-worker',
      code: null,
      status: null,
    });
  });

  await t.test('subscribe() stores the browser subscription with the API', async (t) => {
    const result = await page.evaluate(({ url, key }) => WebPush.subscribe({ baseUrl: url, apiKey: key }), {
      url: api.url,
      key: api.apiKey,
    });
    t.equal(result.created, true);
    t.equal(result.subscription.endpoint, keys.endpoint);

    const stored = await storedSubscription(api, keys.endpoint);
    t.ok(stored, 'the API has it');
    t.equal(stored?.id, result.subscriberId, 'the id the SDK returns is the stored one');
    t.equal(stored?.app_id, api.appId);
    t.equal(stored?.p256dh, keys.p256dh);
    t.equal(stored?.auth, keys.auth);
    t.equal(stored?.status, 'active');

    const state = (await page.evaluate(() => (globalThis as unknown as { fakePush: FakePushState }).fakePush)).calls;
    t.same(state.at(-1), bytesOf(api.vapidPublicKey), "subscribed with the app's VAPID key");
    t.equal(await page.evaluate(() => WebPush.getState()), 'subscribed');

    const worker = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration('/sw.js');
      return { scope: registration?.scope, script: registration?.active?.scriptURL };
    });
    t.equal(worker.scope, `${site}/`);
    const script = new URL(worker.script ?? 'http://missing/');
    t.equal(script.pathname, '/sw.js');
    t.equal(script.searchParams.get('baseUrl'), api.url, 'the worker knows where to re-subscribe');
    t.equal(script.searchParams.get('apiKey'), api.apiKey);
  });

  await t.test('subscribing again reuses the subscription: 200, one row', async (t) => {
    const again = await page.evaluate(({ url, key }) => WebPush.subscribe({ baseUrl: url, apiKey: key }), {
      url: api.url,
      key: api.apiKey,
    });
    t.equal(again.created, false);
    const calls = (await page.evaluate(() => (globalThis as unknown as { fakePush: FakePushState }).fakePush)).calls;
    t.equal(calls.length, 1, 'the browser was not asked for a second subscription');
    const [{ count } = { count: -1 }] = await api.ctx.database.sql<{ count: number }[]>`
      select count(*)::int as count from subscriptions where app_id = ${api.appId}`;
    t.equal(count, 1);
  });

  await t.test('unsubscribe() removes it from the API, then from the browser', async (t) => {
    t.equal(await page.evaluate(() => WebPush.unsubscribe()), true);
    t.equal(await storedSubscription(api, keys.endpoint), null);
    t.equal(await page.evaluate(() => WebPush.getState()), 'unsubscribed');
    t.equal(await page.evaluate(() => WebPush.unsubscribe()), false, 'nothing left to remove');
  });

  await t.test('a visitor who refuses notifications gets permission-denied', async (t) => {
    const refusing = await browser.newContext();
    t.teardown(() => refusing.close());
    await refusing.grantPermissions([], { origin: site });
    const other = await refusing.newPage();
    await other.goto(`${site}/`);
    t.equal(await other.evaluate(() => WebPush.getState()), 'denied', 'headless Chromium refuses by default');
    const failure = await other.evaluate(
      ({ url, key }) =>
        WebPush.subscribe({ baseUrl: url, apiKey: key }).then(
          () => null,
          (error: { reason: string }) => error.reason,
        ),
      { url: api.url, key: api.apiKey },
    );
    t.equal(failure, 'permission-denied');
  });

  t.comment(`browser subscribe flow: ${Date.now() - started} ms`);
}
