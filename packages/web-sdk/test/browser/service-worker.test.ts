import { waitForValue } from '@webpush/testing';
import { watchServiceWorker } from '@webpush/testing/browser';
import t from 'tap';
import {
  bytesOf,
  type FakePushState,
  fakePushScript,
  launchChromium,
  newKeys,
  openPage,
  startApi,
  startSite,
  storedSubscription,
} from './harness.js';

/*
 * The service worker (dist/sw.js) in real Chromium: pushes delivered through CDP's
 * ServiceWorker.deliverPushMessage, clicks and subscription changes dispatched inside the worker
 * (no CDP command clicks a notification or rotates a subscription).
 */

declare const WebPush: { subscribe(options: Record<string, string>): Promise<{ subscriberId: string }> };

interface ShownNotification {
  title: string;
  body: string;
  icon: string;
  badge: string;
  data: { url?: string } | null;
}

const browser = await launchChromium(t);
if (browser) {
  const started = Date.now();
  const [api, site] = await Promise.all([startApi(t), startSite(t)]);
  const context = await browser.newContext();
  t.teardown(() => context.close());

  const workerLogs: string[] = [];
  context.on('serviceworker', (worker) => worker.on('console', (message) => workerLogs.push(message.text())));

  const keys = newKeys();
  const page = await openPage(context, site, [keys]);
  const serviceWorker = await watchServiceWorker(context, page);
  await page.goto(`${site}/`);
  await page.evaluate(({ url, key }) => WebPush.subscribe({ baseUrl: url, apiKey: key }), {
    url: api.url,
    key: api.apiKey,
  });
  const { registrationId, worker, push } = await serviceWorker.ready(site);

  const shown = () =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration('/sw.js');
      const notifications = (await registration?.getNotifications()) ?? [];
      return notifications.map((notification) => ({
        title: notification.title,
        body: notification.body,
        icon: notification.icon,
        badge: (notification as Notification & { badge: string }).badge,
        data: notification.data as { url?: string } | null,
      }));
    }) as Promise<ShownNotification[]>;

  /**
   * Delivers `payload` until headless Chromium lists it, at most 3 times: now and then it shows a
   * notification yet `getNotifications()` lists nothing for good (engagement.test.ts met it too).
   * The first test counts what one push shows; the others deliver through this (a CI run under
   * load listed nothing for 30 s after the first test, in two tests in a row).
   */
  const pushUntilShown = async (payload: { title: string } & Record<string, unknown>) => {
    const listed = (list: ShownNotification[]) => list.some((notification) => notification.title === payload.title);
    for (let delivery = 1; ; delivery++) {
      await push(JSON.stringify(payload));
      try {
        await waitForValue(shown, listed, `"${payload.title}" is listed`, { timeoutMs: 10_000 });
        return;
      } catch (error) {
        if (delivery === 3) throw error;
      }
    }
  };

  const closeAll = () =>
    page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration('/sw.js');
      for (const notification of (await registration?.getNotifications()) ?? []) notification.close();
    });

  await t.test('a push shows the notification from its payload', async (t) => {
    t.ok(registrationId, 'CDP reported the registration');
    const payload = {
      title: 'Sale starts now',
      body: '20% off everything until Sunday',
      url: `${site}/sale`,
      icon: `${site}/icon.png`,
      badge: `${site}/icon.png`,
    };
    await push(JSON.stringify(payload));
    const notifications = await waitForValue(shown, (list) => list.length > 0, 'the push is shown');
    t.equal(notifications.length, 1);
    t.same(notifications[0], {
      title: payload.title,
      body: payload.body,
      icon: payload.icon,
      badge: payload.badge,
      data: { url: payload.url },
    });
    await closeAll();
  });

  await t.test('a push without url, icon or badge shows title and body only', async (t) => {
    await pushUntilShown({ title: 'Hello', body: 'Plain' });
    const notification = (await shown()).find((candidate) => candidate.title === 'Hello');
    t.equal(notification?.title, 'Hello');
    t.equal(notification?.body, 'Plain');
    t.equal(notification?.icon, '');
    t.same(notification?.data, {});
    await closeAll();
  });

  await t.test('a malformed payload shows nothing, warns, and the worker keeps working', async (t) => {
    const before = workerLogs.length;
    for (const data of [
      'not json at all',
      JSON.stringify({ title: 'no body' }),
      JSON.stringify({ title: 1, body: 'x' }),
      '',
    ]) {
      await push(data);
    }
    const warnings = await waitForValue(
      async () => workerLogs.slice(before).filter((line) => line.includes('[webpush] ignored a push')),
      (lines) => lines.length >= 4,
      'the worker warned of every malformed push',
    );
    t.equal(warnings.length, 4, 'one warning per malformed push');
    t.same(await shown(), [], 'nothing shown');

    await pushUntilShown({ title: 'Still here', body: 'after the bad ones' });
    const titles = new Set((await shown()).map((notification) => notification.title));
    t.same([...titles], ['Still here'], 'the next good push shows, and nothing of the malformed ones');
    await closeAll();
  });

  /** Replaces openWindow and WindowClient.focus inside the worker with recorders (a synthetic click may not open windows). */
  const recordWindowCalls = () =>
    worker.evaluate(`(() => {
      globalThis.windowCalls = [];
      Clients.prototype.openWindow = async function (url) { globalThis.windowCalls.push(['open', url]); return null; };
      WindowClient.prototype.focus = async function () { globalThis.windowCalls.push(['focus', this.url]); return this; };
    })()`);
  const windowCalls = () => worker.evaluate('globalThis.windowCalls') as Promise<[string, string][]>;
  /** Dispatches notificationclick for the notification titled `title`, as the browser would on a click. */
  const click = (title: string) =>
    worker.evaluate(`(async () => {
      const notification = (await registration.getNotifications()).find((n) => n.title === ${JSON.stringify(title)});
      if (!notification) throw new Error('no notification to click');
      dispatchEvent(new NotificationEvent('notificationclick', { notification }));
    })()`);

  await t.test('a click closes the notification and opens its url', async (t) => {
    await recordWindowCalls();
    // Waits for this very notification: the previous test's one may still be closing.
    await pushUntilShown({ title: 'Open me', body: 'click', url: `${site}/promo?id=7` });
    await click('Open me');
    const calls = await waitForValue(windowCalls, (list) => list.length > 0, 'a window call is recorded');
    t.same(calls, [['open', `${site}/promo?id=7`]]);
    t.same(await waitForValue(shown, (list) => list.length === 0, 'the notification is closed'), [], 'closed');
  });

  await t.test('a click focuses a window already at the url instead of opening another', async (t) => {
    await recordWindowCalls();
    const article = await context.newPage();
    await article.goto(`${site}/article`);
    // Waits for this very notification: the previous test's one may still be closing.
    await pushUntilShown({ title: 'Back to it', body: 'click', url: `${site}/article` });
    await click('Back to it');
    const calls = await waitForValue(windowCalls, (list) => list.length > 0, 'a window call is recorded');
    t.same(calls, [['focus', `${site}/article`]]);
    await article.close();
  });

  await t.test('a click on a notification without url only closes it', async (t) => {
    await recordWindowCalls();
    // Waits for this very notification: the previous test's one may still be closing.
    await pushUntilShown({ title: 'No link', body: 'x' });
    await click('No link');
    t.same(await waitForValue(shown, (list) => list.length === 0, 'the notification is closed'), []);
    // A later click that does open a page is the marker: by the time its call is recorded, any call
    // of the first click would have been too.
    await pushUntilShown({ title: 'Marker', body: 'x', url: `${site}/marker` });
    await click('Marker');
    const calls = await waitForValue(windowCalls, (list) => list.length > 0, 'a window call is recorded');
    t.same(calls, [['open', `${site}/marker`]], 'only the marker opened a page');
  });

  await t.test('pushsubscriptionchange re-subscribes with the old key and stores the new subscription', async (t) => {
    const renewed = newKeys();
    t.ok(await storedSubscription(api, keys.endpoint), 'the first subscription is stored');
    await worker.evaluate(fakePushScript([renewed]));
    await worker.evaluate(`(() => {
      const event = new ExtendableEvent('pushsubscriptionchange');
      Object.defineProperty(event, 'oldSubscription', {
        value: { endpoint: ${JSON.stringify(keys.endpoint)}, options: { applicationServerKey: new Uint8Array(${JSON.stringify(bytesOf(api.vapidPublicKey))}).buffer } },
      });
      Object.defineProperty(event, 'newSubscription', { value: null });
      dispatchEvent(event);
    })()`);

    const stored = await waitForValue(
      () => storedSubscription(api, renewed.endpoint),
      (row) => row !== null,
      'the renewed subscription is stored',
    );
    t.equal(stored?.app_id, api.appId, 'the worker POSTed the new subscription across origins');
    t.equal(stored?.p256dh, renewed.p256dh);
    t.equal(stored?.auth, renewed.auth);
    const state = (await worker.evaluate('globalThis.fakePush')) as FakePushState;
    t.same(state.calls, [bytesOf(api.vapidPublicKey)], "subscribed with the old subscription's key");
    t.equal(
      await waitForValue(
        () => storedSubscription(api, keys.endpoint),
        (row) => row === null,
        'the dead endpoint is removed',
      ),
      null,
      'the dead endpoint is removed',
    );
  });

  t.comment(`service worker flow: ${Date.now() - started} ms`);
}
