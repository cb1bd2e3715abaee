import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page, type Worker } from 'playwright-core';
import type { Test } from 'tap';
import { waitForValue } from './wait-for.js';

/*
 * Real headless Chromium (Debian's package, scripts/ensure-chromium.sh) driven by playwright-core:
 * permission granted per origin, PushManager.subscribe replaced (no push service is reachable),
 * pushes delivered through a page-level CDP session.
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

export interface BrowserKeys {
  endpoint: string;
  p256dh: string;
  auth: string;
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

/** The service worker of one site, reached through a page-level CDP session. */
export interface ServiceWorkerOfSite {
  registrationId: string;
  worker: Worker;
  /** Delivers `data` as a push message, as a push service would. */
  push(data: string): Promise<void>;
}

/**
 * Turns on CDP's ServiceWorker domain for `page`; call it before `page.goto`, then `ready(site)` once
 * the page has registered its worker. A browser-level CDP session has no ServiceWorker domain, so
 * the session is the page's, and the registration id comes from `workerRegistrationUpdated`.
 */
export async function watchServiceWorker(
  context: BrowserContext,
  page: Page,
): Promise<{ ready(site: string): Promise<ServiceWorkerOfSite> }> {
  const cdp = await context.newCDPSession(page);
  const registrationIds = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
    for (const registration of registrations) {
      if (!registration.isDeleted) registrationIds.set(registration.scopeURL, registration.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');
  return {
    async ready(site) {
      const registrationId = await waitForValue(
        () => registrationIds.get(`${site}/`),
        (id) => id !== undefined,
        `the service worker of ${site} is registered`,
      );
      const worker = await waitForValue(
        () => context.serviceWorkers().find((candidate) => candidate.url().startsWith(`${site}/sw.js`)),
        (found) => found !== undefined,
        `the service worker of ${site} runs`,
      );
      const id = registrationId ?? '';
      return {
        registrationId: id,
        worker: worker as Worker,
        push: async (data) => {
          await cdp.send('ServiceWorker.deliverPushMessage', { origin: site, registrationId: id, data });
        },
      };
    },
  };
}
