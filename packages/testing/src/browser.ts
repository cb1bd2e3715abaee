import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import type { Test } from 'tap';

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
