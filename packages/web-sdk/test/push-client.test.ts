import { quietFor, waitForValue } from '@webpush/testing';
import t, { type Test } from 'tap';
import { WebPushError } from '../src/errors.js';
import { getState, subscribe, unsubscribe } from '../src/push-client.js';
import { API_KEY, BASE_URL, bytesOf, fakeBrowser, json, newVapidKey, PAGE_URL, VAPID_KEY } from './fakes.js';

const options = { baseUrl: BASE_URL, apiKey: API_KEY };

/** Runs `action` and returns the WebPushError it throws; fails the test when it throws anything else. */
async function failure(t: Test, action: () => Promise<unknown>): Promise<WebPushError> {
  try {
    await action();
  } catch (error) {
    t.type(error, WebPushError);
    t.equal((error as Error).name, 'WebPushError');
    return error as WebPushError;
  }
  t.fail('expected a WebPushError');
  throw new Error('unreachable');
}

t.test('getState', async (t) => {
  t.test('unsupported without service workers, push or notifications', async (t) => {
    const browser = fakeBrowser();
    t.equal(await getState({ ...browser.env, serviceWorker: undefined }), 'unsupported');
    t.equal(await getState({ ...browser.env, notification: undefined }), 'unsupported');
  });

  t.test('denied, prompt and unsubscribed follow the permission', async (t) => {
    t.equal(await getState(fakeBrowser({ permission: 'denied' }).env), 'denied');
    t.equal(await getState(fakeBrowser({ permission: 'default' }).env), 'prompt');
    t.equal(await getState(fakeBrowser({ permission: 'granted' }).env), 'unsubscribed');
  });

  t.test('subscribed after subscribe(), unsubscribed after unsubscribe(), and it never prompts', async (t) => {
    const browser = fakeBrowser({ permission: 'granted' });
    await subscribe(browser.env, options);
    t.equal(await getState(browser.env), 'subscribed');
    await unsubscribe(browser.env);
    t.equal(await getState(browser.env), 'unsubscribed');
    t.equal(browser.log.filter((entry) => entry === 'requestPermission').length, 1, 'only subscribe() asked');
  });

  t.test('finds a worker registered under another folder through serviceWorkerUrl', async (t) => {
    const browser = fakeBrowser({ permission: 'granted' });
    await subscribe(browser.env, { ...options, serviceWorkerUrl: '/push/sw.js' });
    t.equal(browser.container.registrations[0]?.scope, 'https://shop.example/push/');
    t.equal(await getState(browser.env), 'unsubscribed', 'the default /sw.js has no registration');
    t.equal(await getState(browser.env, { serviceWorkerUrl: '/push/sw.js' }), 'subscribed');
  });
});

t.test('tracking: false travels to the worker as tracking=0 in its URL; the default adds nothing', async (t) => {
  const off = fakeBrowser({ permission: 'granted' });
  await subscribe(off.env, { ...options, tracking: false });
  const offUrl = new URL(off.log.find((entry) => entry.startsWith('register '))?.slice('register '.length) ?? '');
  t.equal(offUrl.searchParams.get('tracking'), '0');
  t.equal(offUrl.searchParams.get('apiKey'), API_KEY, 'beside the key');

  const on = fakeBrowser({ permission: 'granted' });
  await subscribe(on.env, { ...options, tracking: true });
  const onUrl = new URL(on.log.find((entry) => entry.startsWith('register '))?.slice('register '.length) ?? '');
  t.equal(onUrl.searchParams.has('tracking'), false, 'tracking on is the default: the URL stays as before');
});

t.test('subscribe: the happy path, in order', async (t) => {
  const browser = fakeBrowser({ api: { 'POST /api/v1/subscribe': () => json(201, { subscriber: { id: 'sub_42' } }) } });
  const result = await subscribe(browser.env, { ...options, baseUrl: `${BASE_URL}/` });

  const workerUrl = new URL('/sw.js', PAGE_URL);
  workerUrl.searchParams.set('baseUrl', BASE_URL);
  workerUrl.searchParams.set('apiKey', API_KEY);
  t.same(browser.log, [
    'requestPermission',
    `register ${workerUrl.href}`,
    'GET /api/v1/vapid-public-key',
    'pushManager.subscribe',
    'POST /api/v1/subscribe',
  ]);

  const [vapid, stored] = browser.api.calls;
  t.equal(vapid?.url, `${BASE_URL}/api/v1/vapid-public-key`, 'a trailing slash on baseUrl is dropped');
  t.equal(vapid?.headers.authorization, `Bearer ${API_KEY}`);
  t.equal(stored?.headers.authorization, `Bearer ${API_KEY}`);
  t.equal(stored?.headers['content-type'], 'application/json');

  const pushManager = browser.container.registrations[0]?.pushManager;
  const call = pushManager?.subscribeCalls[0];
  t.equal(call?.userVisibleOnly, true);
  t.same([...(call?.applicationServerKey ?? [])], [...bytesOf(VAPID_KEY)], 'the VAPID key, decoded from base64url');
  t.equal(call?.applicationServerKey.length, 65);

  const subscription = pushManager?.subscription;
  t.same(
    stored?.body,
    { ...subscription?.toJSON(), applicationServerKey: VAPID_KEY },
    'the API receives PushSubscription.toJSON() and the key it was made with',
  );
  t.same(result, { subscriberId: 'sub_42', created: true, subscription: subscription?.toJSON() });
});

t.test('subscribe: uid, uidSignature and tags go to POST /subscribe with the subscription', async (t) => {
  const browser = fakeBrowser();
  const audience = { uid: 'user-42', uidSignature: 'a1'.repeat(32), tags: { lang: 'ja', plan: 'pro' } };
  await subscribe(browser.env, { ...options, ...audience });
  const stored = browser.api.calls.find((call) => call.method === 'POST');
  const subscription = browser.container.registrations[0]?.pushManager?.subscription;
  t.same(stored?.body, { ...subscription?.toJSON(), applicationServerKey: VAPID_KEY, ...audience });

  const plain = fakeBrowser();
  await subscribe(plain.env, options);
  const body = plain.api.calls.find((call) => call.method === 'POST')?.body as Record<string, unknown>;
  t.notOk('uid' in body || 'uidSignature' in body || 'tags' in body, 'absent options are not sent');
});

t.test('subscribe: the browser’s language and time zone go along unless the page passes its own', async (t) => {
  const postedBody = async (env: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const browser = fakeBrowser();
    await subscribe({ ...browser.env, ...env }, { ...options, ...extra });
    return browser.api.calls.find((call) => call.method === 'POST')?.body as Record<string, unknown>;
  };
  const browserSays = { language: 'ja-JP', timeZone: 'Asia/Tokyo' };
  t.match(await postedBody(browserSays), browserSays, 'navigator.language and the resolved time zone');
  t.match(
    await postedBody(browserSays, { language: 'en', timeZone: 'Europe/Berlin' }),
    { language: 'en', timeZone: 'Europe/Berlin' },
    'the page’s own win',
  );
  const none = await postedBody(browserSays, { language: null, timeZone: null });
  t.notOk('language' in none || 'timeZone' in none, 'null: none is sent');
  const unknown = await postedBody({ language: undefined, timeZone: undefined });
  t.notOk('language' in unknown || 'timeZone' in unknown, 'a browser that does not say sends none');
  const long = await postedBody({ language: `x-${'a'.repeat(40)}` });
  t.notOk('language' in long, 'a tag the API would refuse (over 35 characters) is left out');
});

t.test('subscribe: an already stored subscription answers 200 → created false', async (t) => {
  const browser = fakeBrowser({ api: { 'POST /api/v1/subscribe': () => json(200, { subscriber: { id: 'sub_7' } }) } });
  const result = await subscribe(browser.env, options);
  t.equal(result.created, false);
  t.equal(result.subscriberId, 'sub_7');
});

t.test('subscribe: waits for an installing worker to activate before subscribing', async (t) => {
  const browser = fakeBrowser();
  browser.container.installMode = 'installing';
  const pending = subscribe(browser.env, options);
  await quietFor(10, 'nothing subscribed while installing', () => !browser.log.includes('pushManager.subscribe'));
  t.notOk(browser.log.includes('pushManager.subscribe'), 'nothing subscribed while installing');
  const registration = browser.container.registrations[0];
  registration?.installing?.moveTo('installed');
  await quietFor(
    10,
    'no key fetched before the worker is active',
    () => !browser.log.includes('GET /api/v1/vapid-public-key'),
  );
  t.notOk(browser.log.includes('GET /api/v1/vapid-public-key'), 'installed is not yet active');
  registration?.installing?.moveTo('activated');
  const result = await pending;
  t.equal(result.subscriberId, 'sub_1');
});

t.test('subscribe: a worker that fails to install is a service-worker error', async (t) => {
  const browser = fakeBrowser();
  browser.container.installMode = 'installing';
  const pending = failure(t, () => subscribe(browser.env, options));
  const installing = await waitForValue(
    () => browser.container.registrations[0]?.installing,
    (worker) => worker?.watched === true,
    'subscribe() watches the installing worker',
  );
  installing?.moveTo('redundant');
  t.equal((await pending).reason, 'service-worker');
});

t.test('subscribe: reuses a subscription made with the same key', async (t) => {
  const browser = fakeBrowser({ permission: 'granted' });
  const first = await subscribe(browser.env, options);
  const second = await subscribe(browser.env, options);
  t.equal(second.subscription.endpoint, first.subscription.endpoint);
  t.equal(browser.log.filter((entry) => entry === 'pushManager.subscribe').length, 1);
  t.notOk(browser.log.some((entry) => entry.startsWith('unsubscribe')));
  t.equal(browser.log.filter((entry) => entry === 'POST /api/v1/subscribe').length, 2, 'stored again: idempotent');
});

t.test("subscribe: re-subscribes when the existing subscription has another app's key", async (t) => {
  const browser = fakeBrowser({ permission: 'granted' });
  await subscribe(browser.env, options);
  const pushManager = browser.container.registrations[0]?.pushManager;
  const stale = pushManager?.adopt('https://fcm.googleapis.com/fcm/send/stale', bytesOf(newVapidKey()));

  const result = await subscribe(browser.env, options);
  t.ok(stale?.unsubscribed, 'the old subscription is dropped');
  t.not(result.subscription.endpoint, stale?.endpoint);
  t.same([...(pushManager?.subscribeCalls.at(-1)?.applicationServerKey ?? [])], [...bytesOf(VAPID_KEY)]);
  const order = browser.log.slice(browser.log.indexOf(`unsubscribe ${stale?.endpoint}`));
  t.same(order.slice(0, 3), [`unsubscribe ${stale?.endpoint}`, 'pushManager.subscribe', 'POST /api/v1/subscribe']);
});

t.test('subscribe: errors', async (t) => {
  t.test('unsupported browser', async (t) => {
    const browser = fakeBrowser();
    const error = await failure(t, () => subscribe({ ...browser.env, serviceWorker: undefined }, options));
    t.equal(error.reason, 'unsupported');
    t.same(browser.log, [], 'nothing was attempted');
  });

  t.test('iOS Safari outside a Home Screen app: its own reason', async (t) => {
    const browser = fakeBrowser();
    const ios = { ...browser.env, serviceWorker: undefined, notification: undefined, homeScreenRequired: true };
    const error = await failure(t, () => subscribe(ios, options));
    t.equal(error.reason, 'home-screen-required');
    t.equal(await getState(ios), 'unsupported', 'getState() keeps its answer');
    t.same(browser.log, [], 'nothing was attempted');
  });

  for (const answer of ['denied', 'default'] as const) {
    t.test(`permission answered "${answer}"`, async (t) => {
      const browser = fakeBrowser({ answer });
      const error = await failure(t, () => subscribe(browser.env, options));
      t.equal(error.reason, 'permission-denied');
      t.same(browser.log, ['requestPermission'], 'no worker, no request after a refusal');
    });
  }

  t.test('the permission prompt itself throws', async (t) => {
    const browser = fakeBrowser();
    browser.notification.requestPermission = async () => {
      throw new TypeError('prompt blocked');
    };
    t.equal((await failure(t, () => subscribe(browser.env, options))).reason, 'permission-denied');
  });

  t.test('the worker cannot be registered', async (t) => {
    const browser = fakeBrowser();
    browser.container.registerError = new TypeError('bad script MIME type');
    const error = await failure(t, () => subscribe(browser.env, options));
    t.equal(error.reason, 'service-worker');
    t.type(error.cause, TypeError);
  });

  t.test('the API is unreachable', async (t) => {
    const browser = fakeBrowser({
      api: {
        'GET /api/v1/vapid-public-key': () => {
          throw new TypeError('Failed to fetch');
        },
      },
    });
    const error = await failure(t, () => subscribe(browser.env, options));
    t.equal(error.reason, 'network');
    t.equal(error.code, undefined);
    t.equal(error.status, undefined);
  });

  t.test('an invalid API key', async (t) => {
    const browser = fakeBrowser({
      api: { 'GET /api/v1/vapid-public-key': () => json(401, { error: 'APIキーが無効です', code: 'INVALID_API_KEY' }) },
    });
    const error = await failure(t, () => subscribe(browser.env, options));
    t.equal(error.reason, 'api');
    t.equal(error.code, 'INVALID_API_KEY');
    t.equal(error.status, 401);
    t.match(error.message, /INVALID_API_KEY/);
    t.notOk(browser.log.includes('pushManager.subscribe'));
  });

  t.test('the subscriber limit: the fresh browser subscription is dropped again', async (t) => {
    const browser = fakeBrowser({
      api: {
        'POST /api/v1/subscribe': () =>
          json(429, { error: '上限', code: 'SUBSCRIBER_LIMIT_EXCEEDED', upgrade_url: 'https://push.example/pricing' }),
      },
    });
    const error = await failure(t, () => subscribe(browser.env, options));
    t.equal(error.reason, 'api');
    t.equal(error.code, 'SUBSCRIBER_LIMIT_EXCEEDED');
    t.equal(error.status, 429);
    t.ok(browser.container.registrations[0]?.pushManager.created[0]?.unsubscribed);
    t.equal(await getState(browser.env), 'unsubscribed');
  });

  t.test('a failed store keeps a subscription the browser already had', async (t) => {
    const browser = fakeBrowser({ permission: 'granted' });
    await subscribe(browser.env, options);
    const kept = browser.container.registrations[0]?.pushManager.subscription;
    const failing = fakeBrowser({
      api: { 'POST /api/v1/subscribe': () => json(503, { error: 'x', code: 'CONFIG_ERROR' }) },
    });
    const error = await failure(t, () => subscribe({ ...browser.env, fetch: failing.api.fetch }, options));
    t.equal(error.code, 'CONFIG_ERROR');
    t.equal(kept?.unsubscribed, false);
  });

  t.test('an error answer that is not JSON', async (t) => {
    const browser = fakeBrowser({
      api: { 'GET /api/v1/vapid-public-key': () => new Response('<html>Bad Gateway</html>', { status: 502 }) },
    });
    const error = await failure(t, () => subscribe(browser.env, options));
    t.equal(error.reason, 'api');
    t.equal(error.code, undefined);
    t.equal(error.status, 502);
  });

  t.test('a 200 without a VAPID key', async (t) => {
    const browser = fakeBrowser({ api: { 'GET /api/v1/vapid-public-key': () => json(200, {}) } });
    t.equal((await failure(t, () => subscribe(browser.env, options))).reason, 'api');
  });

  t.test('the browser refuses the push subscription', async (t) => {
    const browser = fakeBrowser();
    await subscribe(browser.env, options).catch(() => {});
    const pushManager = browser.container.registrations[0]?.pushManager;
    if (pushManager) {
      pushManager.subscription = null;
      pushManager.subscribeError = new DOMException('Registration failed - permission denied', 'NotAllowedError');
    }
    t.equal((await failure(t, () => subscribe(browser.env, options))).reason, 'permission-denied');
    if (pushManager) pushManager.subscribeError = new DOMException('push service error', 'AbortError');
    t.equal((await failure(t, () => subscribe(browser.env, options))).reason, 'service-worker');
  });
});

t.test('unsubscribe', async (t) => {
  t.test('DELETEs the endpoint with the key from the worker URL, then unsubscribes the browser', async (t) => {
    const browser = fakeBrowser();
    const { subscription } = await subscribe(browser.env, options);
    browser.log.length = 0;
    t.equal(await unsubscribe(browser.env), true);
    t.same(browser.log, ['DELETE /api/v1/subscribe', `unsubscribe ${subscription.endpoint}`]);
    const call = browser.api.calls.at(-1);
    t.equal(call?.url, `${BASE_URL}/api/v1/subscribe`);
    t.equal(call?.headers.authorization, `Bearer ${API_KEY}`);
    t.same(call?.body, { endpoint: subscription.endpoint });
  });

  t.test('false when there is nothing to unsubscribe', async (t) => {
    const browser = fakeBrowser({ permission: 'granted' });
    t.equal(await unsubscribe(browser.env), false, 'no registration');
    await subscribe(browser.env, options);
    await unsubscribe(browser.env);
    browser.log.length = 0;
    t.equal(await unsubscribe(browser.env), false, 'registration without subscription');
    t.same(browser.log, []);
  });

  t.test('already gone on the server (404): the browser side still goes', async (t) => {
    const browser = fakeBrowser({
      api: { 'DELETE /api/v1/subscribe': () => json(404, { error: 'ない', code: 'NOT_FOUND' }) },
    });
    await subscribe(browser.env, options);
    t.equal(await unsubscribe(browser.env), true);
    t.ok(browser.container.registrations[0]?.pushManager.created[0]?.unsubscribed);
  });

  t.test('network failure: throws and keeps the browser subscription', async (t) => {
    const browser = fakeBrowser();
    await subscribe(browser.env, options);
    const offline = async () => {
      throw new TypeError('Failed to fetch');
    };
    const error = await failure(t, () => unsubscribe({ ...browser.env, fetch: offline }));
    t.equal(error.reason, 'network');
    t.equal(browser.container.registrations[0]?.pushManager.subscription?.unsubscribed, false);
  });

  t.test('explicit baseUrl/apiKey win over the worker URL', async (t) => {
    const browser = fakeBrowser();
    await subscribe(browser.env, options);
    await unsubscribe(browser.env, { baseUrl: 'https://other.example', apiKey: 'wpk_other' });
    const call = browser.api.calls.at(-1);
    t.equal(call?.url, 'https://other.example/api/v1/subscribe');
    t.equal(call?.headers.authorization, 'Bearer wpk_other');
  });

  t.test('a worker registered by hand, without baseUrl/apiKey, needs them passed', async (t) => {
    const browser = fakeBrowser({ permission: 'granted' });
    const registration = await browser.container.register(new URL('/sw.js', PAGE_URL).href);
    await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytesOf(VAPID_KEY) });
    const error = await failure(t, () => unsubscribe(browser.env));
    t.equal(error.reason, 'service-worker');
    t.match(error.message, /baseUrl and apiKey/);
  });
});
