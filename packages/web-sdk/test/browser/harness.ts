import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';
// The API is this SDK's counterpart: the tests run the real one, built the way its own tests build it.
import { buildTestApp, fakeSubscription, ownerWithKey, type TestContext } from '../../../../apps/api/test/helper.js';
import { bundleText } from '../../build.mjs';

/*
 * Real headless Chromium (Debian's package, scripts/ensure-chromium.sh) driven by playwright-core,
 * as shared/TOOLCHAIN.md records it working: permission granted per origin, PushManager.subscribe
 * replaced (no push service is reachable), pushes delivered through a page-level CDP session.
 */

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Chromium, or null after telling why the test is skipped (outside CI) or failed (in CI). */
export async function launchChromium(t: Test): Promise<Browser | null> {
  let reason: string | null = null;
  let browser: Browser | null = null;
  if (!existsSync(CHROMIUM)) {
    reason = `${CHROMIUM} is missing: run scripts/ensure-chromium.sh`;
  } else {
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
    } catch (error) {
      reason = `Chromium cannot start here: ${(error as Error).message.split('\n')[0]}`;
    }
  }
  if (!browser) {
    // In CI (.ci/run installs Chromium first) a browser that cannot start is a failure, not a skip.
    if (process.env.CI) {
      t.fail(`browser tests could not run: ${reason}`);
      return null;
    }
    console.error(`SKIPPED browser tests: ${reason}`);
    t.pass('browser tests', { skip: reason ?? 'unknown' });
    return null;
  }
  const started = browser;
  t.teardown(() => started.close());
  return started;
}

/** A 1×1 transparent PNG, so notification icons load instead of failing. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The customer's site: a page with the script-tag SDK, and the service worker at any path ending in
 * `sw.js`, all on its own origin (127.0.0.1 counts as a secure context), another port than the API.
 */
export async function startSite(t: Test): Promise<string> {
  const [sdk, sw] = await Promise.all([bundleText('web-sdk.js'), bundleText('sw.js')]);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    if (path === '/web-sdk.js' || path.endsWith('sw.js')) {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      response.end(path === '/web-sdk.js' ? sdk : sw);
    } else if (path === '/icon.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(PNG);
    } else {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><meta charset="utf-8"><title>shop ${path}</title><script src="/web-sdk.js"></script>`,
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface RunningApi {
  ctx: TestContext;
  /** The API's origin, e.g. http://127.0.0.1:41234. */
  url: string;
  appId: string;
  vapidPublicKey: string;
  /** A `subscribe_only` key of the app, as a site would embed it. */
  apiKey: string;
  /** The owner's session token (dashboard routes, creating other keys). */
  userToken: string;
}

/** The real API on its own port, with a user, an app and a `subscribe_only` key. */
export async function startApi(t: Test): Promise<RunningApi> {
  const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000' });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  const owner = await ownerWithKey(ctx.app, 'subscribe_only');
  const address = ctx.app.server.address() as AddressInfo;
  return {
    ctx,
    url: `http://127.0.0.1:${address.port}`,
    appId: owner.app.id,
    vapidPublicKey: owner.app.vapidPublicKey,
    apiKey: owner.secret,
    userToken: owner.user.token,
  };
}

export interface BrowserKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** Subscriptions with real P-256 keys on an allow-listed push host, made in Node. */
export const newKeys = (): BrowserKeys => fakeSubscription();

export interface FakePushState {
  /** applicationServerKey bytes of every subscribe() call. */
  calls: number[][];
}

/**
 * Source run in a page (before its scripts) or a worker: PushManager.subscribe hands out `keys` in
 * turn as PushSubscription-shaped objects, getSubscription returns the current one until it
 * unsubscribes, and `globalThis.fakePush.calls` records each applicationServerKey. A string, not a
 * function: tsx's keepNames would put `__name(…)` calls into a serialized function.
 */
export function fakePushScript(keys: BrowserKeys[]): string {
  return `(() => {
  const keys = ${JSON.stringify(keys)};
  const decode = (text) =>
    Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0)).buffer;
  const state = { calls: [], next: 0, current: null };
  globalThis.fakePush = state;
  PushManager.prototype.subscribe = async (options) => {
    const key = new Uint8Array(options.applicationServerKey);
    state.calls.push([...key]);
    const chosen = keys[state.next++ % keys.length];
    const subscription = {
      endpoint: chosen.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: key.slice().buffer },
      getKey: (name) => decode(name === 'p256dh' ? chosen.p256dh : chosen.auth),
      toJSON: () => ({ endpoint: chosen.endpoint, expirationTime: null, keys: { p256dh: chosen.p256dh, auth: chosen.auth } }),
      unsubscribe: async () => {
        if (state.current === subscription) state.current = null;
        return true;
      },
    };
    state.current = subscription;
    return subscription;
  };
  PushManager.prototype.getSubscription = async () => state.current;
})();`;
}

/** A page with the fake PushManager whose origin may show notifications. */
export async function openPage(context: BrowserContext, origin: string, keys: BrowserKeys[]): Promise<Page> {
  await context.grantPermissions(['notifications'], { origin });
  const page = await context.newPage();
  await page.addInitScript(fakePushScript(keys));
  return page;
}

/**
 * Polls until `accept` holds or the time is up; returns the last value either way, for the assertion.
 * 30 s by default: a loaded machine (other test files on two cores, load average 40 seen) can take
 * over 20 s to show a notification.
 */
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await probe();
  while (!accept(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await probe();
  }
  return value;
}

export async function storedSubscription(api: RunningApi, endpoint: string) {
  const rows = await api.ctx.database.sql<
    { id: string; app_id: string; p256dh: string; auth: string; status: string }[]
  >`
    select id, app_id, p256dh, auth, status from subscriptions where endpoint = ${endpoint}`;
  return rows[0] ?? null;
}

export const bytesOf = (base64url: string) => [...Buffer.from(base64url, 'base64url')];
