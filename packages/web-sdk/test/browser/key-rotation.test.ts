import { waitForValue } from '@webpush/testing';
import type { Worker } from 'playwright-core';
import t from 'tap';
import {
  bytesOf,
  type FakePushState,
  fakePushScript,
  launchChromium,
  newKeys,
  openPage,
  type RunningApi,
  startApi,
  startSite,
  storedSubscription,
} from './harness.js';

/*
 * After the app's VAPID key is rotated, the SDK moves the browser to the new key (docs/security.md
 * "VAPID key rotation"): at subscribe(), and from the service worker on pushsubscriptionchange when
 * the browser renewed the subscription with the earlier key. Real Chromium, real API.
 */

declare const WebPush: {
  subscribe(options: Record<string, string>): Promise<{ subscriberId: string; created: boolean }>;
};

const rotate = async (api: RunningApi) => {
  const response = await api.ctx.app.inject({
    method: 'POST',
    url: `/api/v1/apps/${api.appId}/vapid-key/rotate`,
    headers: { authorization: `Bearer ${api.userToken}` },
  });
  if (response.statusCode !== 200) throw new Error(`rotate: ${response.statusCode} ${response.body}`);
  return (response.json() as { app: { vapidPublicKey: string } }).app.vapidPublicKey;
};

/** The key the API says each stored subscription was made with, by endpoint. */
const keysByEndpoint = async (api: RunningApi) => {
  const response = await api.ctx.app.inject({
    method: 'GET',
    url: `/api/v1/apps/${api.appId}/subscribers`,
    headers: { authorization: `Bearer ${api.userToken}` },
  });
  const { subscribers } = response.json() as { subscribers: { endpoint: string; vapidPublicKey: string }[] };
  return Object.fromEntries(subscribers.map((s) => [s.endpoint, s.vapidPublicKey]));
};

const browser = await launchChromium(t);
if (browser) {
  const [api, site] = await Promise.all([startApi(t), startSite(t)]);
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const [first, second, renewedByBrowser, third] = [newKeys(), newKeys(), newKeys(), newKeys()];
  const page = await openPage(context, site, [first, second]);
  await page.goto(`${site}/`);
  const subscribe = () =>
    page.evaluate(({ url, key }) => WebPush.subscribe({ baseUrl: url, apiKey: key }), {
      url: api.url,
      key: api.apiKey,
    });
  const calls = async () =>
    (await page.evaluate(() => (globalThis as unknown as { fakePush: FakePushState }).fakePush)).calls;

  await t.test('subscribe() tells the key it subscribed with', async (t) => {
    t.equal((await subscribe()).created, true);
    t.same(await keysByEndpoint(api), { [first.endpoint]: api.vapidPublicKey });
  });

  await t.test('after a rotation, subscribe() subscribes again with the new key', async (t) => {
    const rotated = await rotate(api);
    const again = await subscribe();
    t.equal(again.created, true, 'a new subscription');
    t.same(await calls(), [bytesOf(api.vapidPublicKey), bytesOf(rotated)], 'the browser was asked with the new key');
    t.same(await keysByEndpoint(api), { [second.endpoint]: rotated }, 'stored with the new key; the old one removed');
    t.equal(await storedSubscription(api, first.endpoint), null);

    const unchanged = await subscribe();
    t.equal(unchanged.created, false, 'with the current key nothing changes');
    t.equal((await calls()).length, 2);
  });

  await t.test('pushsubscriptionchange with the earlier key moves the browser to the current key', async (t) => {
    const worker = (await waitForValue(
      async () => context.serviceWorkers().find((candidate) => candidate.url().startsWith(`${site}/sw.js`)),
      (found) => found !== undefined,
      'the service worker runs',
    )) as Worker;
    const previous = (await keysByEndpoint(api))[second.endpoint] ?? '';
    const current = await rotate(api);
    // The browser renewed the subscription by itself, still with the key it had (the one before the rotation).
    await worker.evaluate(fakePushScript([third]));
    await worker.evaluate(`(() => {
      const key = new Uint8Array(${JSON.stringify(bytesOf(previous))}).buffer;
      const renewed = {
        endpoint: ${JSON.stringify(renewedByBrowser.endpoint)},
        options: { applicationServerKey: key },
        toJSON: () => ({ endpoint: ${JSON.stringify(renewedByBrowser.endpoint)}, keys: ${JSON.stringify({ p256dh: renewedByBrowser.p256dh, auth: renewedByBrowser.auth })} }),
        unsubscribe: async () => { globalThis.renewedUnsubscribed = true; return true; },
      };
      const event = new ExtendableEvent('pushsubscriptionchange');
      Object.defineProperty(event, 'oldSubscription', {
        value: { endpoint: ${JSON.stringify(second.endpoint)}, options: { applicationServerKey: key } },
      });
      Object.defineProperty(event, 'newSubscription', { value: renewed });
      dispatchEvent(event);
    })()`);

    const keys = await waitForValue(
      () => keysByEndpoint(api),
      (stored) => stored[third.endpoint] !== undefined && stored[second.endpoint] === undefined,
      'the renewed subscription is stored with the current key',
    );
    t.same(keys, { [third.endpoint]: current }, 'stored with the current key, the dead endpoint removed');
    t.equal(await worker.evaluate('globalThis.renewedUnsubscribed === true'), true, 'the earlier-key one dropped');
    const state = (await worker.evaluate('globalThis.fakePush')) as FakePushState;
    t.same(state.calls, [bytesOf(current)], 'subscribed with the current key');
  });
}
