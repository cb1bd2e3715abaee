import type { FetchLike } from './api-client.js';
import * as conversions from './conversions.js';
import { needsHomeScreen } from './home-screen.js';
import { readLastClick } from './last-click.js';
import * as client from './push-client.js';

export { WebPushError, type WebPushErrorReason } from './errors.js';
export type {
  PushState,
  SubscribeOptions,
  SubscribeResult,
  SubscriptionJson,
  UnsubscribeOptions,
  WorkerOptions,
} from './push-client.js';

/** Read on every call, not at load: the script may load before a polyfill or in a page without push. */
function browser(): client.PushEnvironment {
  const push =
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof PushManager !== 'undefined' &&
    typeof Notification !== 'undefined';
  return {
    serviceWorker: push ? navigator.serviceWorker : undefined,
    notification: push ? Notification : undefined,
    fetch: ((url, init) => fetch(url, init)) satisfies FetchLike,
    pageUrl: typeof location === 'undefined' ? 'http://localhost/' : location.href,
    language: typeof navigator === 'undefined' ? undefined : navigator.language,
    timeZone: resolvedTimeZone(),
    homeScreenRequired: needsHomeScreen(),
  };
}

function resolvedTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * Registers the service worker, asks for notification permission, subscribes the browser with the
 * app's VAPID key and stores the subscription with the service. Call it from a click handler.
 */
export const subscribe = (options: client.SubscribeOptions): Promise<client.SubscribeResult> =>
  client.subscribe(browser(), options);

/** Removes the subscription from the service, then from the browser. False when there was none. */
export const unsubscribe = (options?: client.UnsubscribeOptions): Promise<boolean> =>
  client.unsubscribe(browser(), options);

/** 'unsupported' | 'denied' | 'prompt' | 'subscribed' | 'unsubscribed', without prompting. */
export const getState = (options?: client.WorkerOptions): Promise<client.PushState> =>
  client.getState(browser(), options);

/**
 * Credits a conversion (a purchase, a sign-up; `value` 0–1,000,000,000, summed per notification) to
 * the notification this browser last clicked within 7 days. False when there is none to credit.
 */
export const trackConversion = (value?: number): Promise<boolean> =>
  conversions.trackConversion(
    {
      fetch: (url, init) => fetch(url, init),
      lastClick: async () => (typeof indexedDB === 'undefined' ? undefined : readLastClick(indexedDB)),
      now: () => Date.now(),
    },
    value,
  );
