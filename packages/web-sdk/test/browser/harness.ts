import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
// The API is this SDK's counterpart: the tests run the real one, built the way its own tests build it.
// `@webpush/api` serves this SDK (a dependency of it), so this package cannot declare the API back
// without a workspace cycle: the root workspace declares it for these end-to-end tests.
import { type BuildOptions, buildApp } from '@webpush/api/app';
import { fakeSubscription, ownerWithKey, type TestContext, testAppBuilder } from '@webpush/testing';
import { type BrowserKeys, fakePushScript } from '@webpush/testing/browser';
import type { BrowserContext, Page } from 'playwright-core';
import type { Test } from 'tap';
import { bundleText, UI_PARTS } from '../../build.mjs';

/*
 * Real headless Chromium (@webpush/testing/browser launches it) against the real API, on PostgreSQL
 * and Redis of their own.
 */

export {
  type BrowserKeys,
  CHROMIUM,
  fakePushScript,
  launchChromium,
} from '@webpush/testing/browser';

const buildTestApp = testAppBuilder<BuildOptions>(buildApp);

/** A 1×1 transparent PNG, so notification icons load instead of failing. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * The customer's site: a page with the script-tag SDK, and the service worker at any path ending in
 * `sw.js`, all on its own origin (127.0.0.1 counts as a secure context), another port than the API.
 */
export async function startSite(t: Test, options: { uiParts?: boolean } = {}): Promise<string> {
  const [sdk, sw] = await Promise.all([bundleText('web-sdk.js'), bundleText('sw.js')]);
  const parts = options.uiParts
    ? Object.fromEntries(
        await Promise.all(
          UI_PARTS.map(async (part) => [`/web-sdk-${part}.js`, await bundleText(`web-sdk-${part}.js`)]),
        ),
      )
    : {};
  const partTags = Object.keys(parts)
    .map((path) => `<script src="${path}"></script>`)
    .join('');
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site');
    const path = url.pathname;
    if (path === '/web-sdk.js' || path.endsWith('sw.js') || parts[path]) {
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      response.end(parts[path] ?? (path === '/web-sdk.js' ? sdk : sw));
    } else if (path === '/icon.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(PNG);
    } else {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      // ?lang=ja gives the page a language, as a site's <html lang> would.
      const lang = url.searchParams.get('lang') === 'ja' ? 'ja' : 'en';
      response.end(
        `<!doctype html><html lang="${lang}"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>shop ${path}</title><script src="/web-sdk.js"></script>${partTags}<main><h1>Shop</h1><p id="content">Products</p><div id="slot"></div></main>`,
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

/** Subscriptions with real P-256 keys on an allow-listed push host, made in Node. */
export const newKeys = (): BrowserKeys => fakeSubscription();

export interface FakePushState {
  /** applicationServerKey bytes of every subscribe() call. */
  calls: number[][];
}

/** A page with the fake PushManager whose origin may show notifications. */
export async function openPage(context: BrowserContext, origin: string, keys: BrowserKeys[]): Promise<Page> {
  await context.grantPermissions(['notifications'], { origin });
  const page = await context.newPage();
  await page.addInitScript(fakePushScript(keys));
  return page;
}

export async function storedSubscription(api: RunningApi, endpoint: string) {
  const rows = await api.ctx.database.sql<
    { id: string; app_id: string; p256dh: string; auth: string; status: string }[]
  >`
    select id, app_id, p256dh, auth, status from subscriptions where endpoint = ${endpoint}`;
  return rows[0] ?? null;
}

export const bytesOf = (base64url: string) => [...Buffer.from(base64url, 'base64url')];
