/*
 * The service worker a site serves from its own origin (copy dist/sw.js to /sw.js, or put
 * `importScripts('https://<service>/sdk/sw.js')` in its own worker). Built as a plain script, no
 * modules. It shows the service's pushes (the service's JSON, or a W3C declarative push message
 * on browsers that do not show those themselves) with their image and buttons, opens the `url` of
 * what was clicked, reports `shown` and `clicked` (with the button's `action`) to the service (unless the site passed `tracking: false`),
 * remembers the last click for `trackConversion()` (in the site's own IndexedDB) and keeps the subscription
 * alive when the browser rotates it. The service's address, the app's API key and the tracking
 * switch come from this script's own URL (`/sw.js?baseUrl=…&apiKey=…[&tracking=0]`), which
 * `subscribe()` registers.
 */
import { type ApiTarget, callApi, fetchVapidKey } from './api-client.js';
import { base64UrlToBytes, sameBytes } from './base64url.js';
import { saveLastClick } from './last-click.js';
import { subscribeBody } from './subscribe-body.js';
import { targetFromScriptUrl, trackingFromScriptUrl } from './worker-url.js';

const worker = self as unknown as ServiceWorkerGlobalScope;

/** What the worker shows, read from either payload format. */
interface Shown {
  title: string;
  options: Record<string, unknown>;
  /** The notification's id, which engagement events are reported with. */
  id?: string;
}

/** Stored on the notification, for the click. */
interface ClickData {
  /** The page the notification opens (declarative: its click link, which counts the click itself). */
  url?: string;
  id?: string;
  /** Each button's page, by its `action`. */
  actions?: Record<string, string>;
  /** Declarative: the click links count the click, no POST /events for it. */
  counted?: boolean;
  /** The send's own `data`, for the site's own worker code. */
  data?: unknown;
}

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null;
const optionalString = (value: unknown) => value === undefined || typeof value === 'string';
const optionalBoolean = (value: unknown) => value === undefined || typeof value === 'boolean';

/** The display options both formats share (each only when given). */
function displayOptions(fields: Fields): Fields | null {
  if (!['body', 'icon', 'badge', 'image', 'tag'].every((name) => optionalString(fields[name]))) return null;
  if (!['requireInteraction', 'silent', 'renotify'].every((name) => optionalBoolean(fields[name]))) return null;
  const options: Fields = {};
  for (const name of ['body', 'icon', 'badge', 'image', 'tag', 'requireInteraction', 'silent', 'renotify']) {
    if (fields[name] !== undefined && fields[name] !== '') options[name] = fields[name];
  }
  return options;
}

/** Buttons `{action, title, icon?}` and each one's page (`url`, or `navigate` in a declarative message). */
function buttons(
  value: unknown,
  urlField: 'url' | 'navigate',
): { shown: Fields[]; urls: Record<string, string> } | null {
  if (value === undefined) return { shown: [], urls: {} };
  if (!Array.isArray(value)) return null;
  const shown: Fields[] = [];
  const urls: Record<string, string> = {};
  for (const button of value) {
    if (!isObject(button) || typeof button.action !== 'string' || typeof button.title !== 'string') return null;
    if (!optionalString(button.icon) || !optionalString(button[urlField])) return null;
    shown.push(
      button.icon
        ? { action: button.action, title: button.title, icon: button.icon }
        : { action: button.action, title: button.title },
    );
    if (typeof button[urlField] === 'string') urls[button.action] = button[urlField] as string;
  }
  return { shown, urls };
}

/**
 * A W3C declarative push message (`{"web_push": 8030, "notification": {…}}`), shown here by
 * browsers that hand it to the worker (all but Safari 18.4+, which shows it itself).
 */
function readDeclarative(message: Fields): Shown | null {
  const input = message.notification;
  if (!isObject(input) || typeof input.title !== 'string' || typeof input.navigate !== 'string') return null;
  const options = displayOptions(input);
  const actions = buttons(input.actions, 'navigate');
  if (!options || !actions) return null;
  const data = isObject(input.data) ? input.data : {};
  const id = typeof data.id === 'string' ? data.id : undefined;
  const click: ClickData = { url: input.navigate, id, counted: true, data: data.data };
  if (Object.keys(actions.urls).length > 0) click.actions = actions.urls;
  if (actions.shown.length > 0) options.actions = actions.shown;
  options.data = click;
  return { title: input.title, options, ...(id ? { id } : {}) };
}

/** The service's payload (`{title, body, url?, icon?, badge?, image?, actions?, …, id?}`) or a declarative message; null for anything else. */
function readPayload(data: PushMessageData | null): Shown | null {
  if (!data) return null;
  let value: unknown;
  try {
    value = data.json();
  } catch {
    return null;
  }
  if (!isObject(value)) return null;
  if (value.web_push === 8030) return readDeclarative(value);
  if (typeof value.title !== 'string' || typeof value.body !== 'string') return null;
  if (!optionalString(value.url) || !optionalString(value.id)) return null;
  const options = displayOptions(value);
  const actions = buttons(value.actions, 'url');
  if (!options || !actions) return null;
  const id = value.id as string | undefined;
  const click: ClickData = { url: value.url as string | undefined, id, data: value.data };
  if (Object.keys(actions.urls).length > 0) click.actions = actions.urls;
  if (actions.shown.length > 0) options.actions = actions.shown;
  options.data = click;
  return { title: value.title, options, ...(id ? { id } : {}) };
}

worker.addEventListener('install', () => {
  // Push only, no fetch handler: nothing in a page depends on which version runs, so a new one
  // (another API key, an SDK update) takes over at once instead of waiting for every tab to close.
  void worker.skipWaiting();
});

/**
 * Tells the service a notification was shown or clicked (`POST /events`, counted once per
 * notification, subscription and type). Never throws: an event that cannot be sent is dropped.
 */
async function report(type: 'shown' | 'clicked', notificationId: unknown, action?: string): Promise<void> {
  const target = targetFromScriptUrl(worker.location.href);
  if (!target || typeof notificationId !== 'string' || !trackingFromScriptUrl(worker.location.href)) return;
  try {
    const subscription = await worker.registration.pushManager.getSubscription();
    if (subscription) {
      const event = { notificationId, endpoint: subscription.endpoint, type, ...(action ? { action } : {}) };
      await callApi(fetch, target, 'POST', '/events', event);
    }
  } catch (error) {
    console.warn(`[webpush] could not report "${type}"`, error);
  }
}

/** The app badge a payload asks for: `appBadge` (the service's JSON) or `app_badge` (declarative). */
function appBadgeOf(data: PushMessageData | null): number | undefined {
  try {
    const value: unknown = data?.json();
    if (!isObject(value)) return undefined;
    const badge = value.web_push === 8030 ? value.app_badge : value.appBadge;
    return Number.isInteger(badge) && (badge as number) >= 0 ? (badge as number) : undefined;
  } catch {
    return undefined;
  }
}

interface BadgingNavigator {
  setAppBadge?: (contents?: number) => Promise<void>;
  clearAppBadge?: () => Promise<void>;
}

/** Sets (0: clears) the app's icon badge where the Badging API exists; elsewhere nothing happens. */
async function setAppBadge(badge: number | undefined): Promise<void> {
  if (badge === undefined) return;
  const badging = worker.navigator as unknown as BadgingNavigator;
  try {
    if (badge === 0 && typeof badging.clearAppBadge === 'function') await badging.clearAppBadge();
    else if (badge > 0 && typeof badging.setAppBadge === 'function') await badging.setAppBadge(badge);
  } catch (error) {
    console.warn('[webpush] could not set the app badge', error);
  }
}

worker.addEventListener('push', (event) => {
  const badge = appBadgeOf(event.data);
  const shown = readPayload(event.data);
  if (!shown) {
    console.warn('[webpush] ignored a push whose payload is neither {title, body, …} nor a declarative message');
    return;
  }
  // Reported once the notification is up, so it never waits on the network.
  event.waitUntil(
    Promise.all([
      setAppBadge(badge),
      worker.registration
        .showNotification(shown.title, shown.options as NotificationOptions)
        .then(() => report('shown', shown.id)),
    ]),
  );
});

/** Stores the click a later `trackConversion()` on the site credits. Never throws. */
async function rememberClick(notificationId: unknown): Promise<void> {
  const target = targetFromScriptUrl(worker.location.href);
  if (!target || typeof notificationId !== 'string' || !trackingFromScriptUrl(worker.location.href)) return;
  try {
    const subscription = await worker.registration.pushManager.getSubscription();
    if (subscription) {
      const click = { ...target, notificationId, endpoint: subscription.endpoint, clickedAt: Date.now() };
      await saveLastClick(worker.indexedDB, click);
    }
  } catch (error) {
    console.warn('[webpush] could not remember the click for conversions', error);
  }
}

async function focusOrOpen(url: string): Promise<void> {
  const target = new URL(url, worker.location.href).href;
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => client.url === target);
  if (open) await open.focus();
  else await worker.clients.openWindow(target);
}

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = (event.notification.data ?? {}) as ClickData;
  const action = event.action || undefined;
  // A button opens its own page, or the notification's when it has none.
  const url = (action && data.actions?.[action]) || data.url;
  // Side by side: opening the url does not wait for the report. A declarative message's links
  // count the click when they open, so nothing is reported for it here.
  const reported = data.counted ? Promise.resolve() : report('clicked', data.id, action);
  const clicked = Promise.all([reported, rememberClick(data.id)]);
  event.waitUntil(typeof url === 'string' ? Promise.all([focusOrOpen(url), clicked]) : clicked);
});

/**
 * Stores the browser's new subscription, made with the app's current key: one the browser renewed
 * with an earlier key (the app's key was rotated since) is replaced by one with the current key.
 */
async function renewSubscription(event: PushSubscriptionChangeEvent, target: ApiTarget): Promise<void> {
  const { pushManager } = worker.registration;
  const applicationServerKey = base64UrlToBytes(await fetchVapidKey(fetch, target));
  let renewed = event.newSubscription ?? (await pushManager.getSubscription());
  if (renewed && !sameBytes(renewed.options.applicationServerKey, applicationServerKey)) {
    await renewed.unsubscribe();
    renewed = null;
  }
  renewed ??= await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
  await callApi(fetch, target, 'POST', '/subscribe', subscribeBody(renewed));
  const old = event.oldSubscription?.endpoint;
  // The old endpoint is dead; removing it frees the subscriber slot now instead of at the next send.
  if (old && old !== renewed.endpoint)
    await callApi(fetch, target, 'DELETE', '/subscribe', { endpoint: old }).catch(() => {});
}

worker.addEventListener('pushsubscriptionchange', (event) => {
  const target = targetFromScriptUrl(worker.location.href);
  if (!target) {
    console.warn('[webpush] pushsubscriptionchange: no baseUrl/apiKey in the worker URL, cannot re-subscribe');
    return;
  }
  event.waitUntil(
    renewSubscription(event, target).catch((error: unknown) => {
      console.warn('[webpush] re-subscribing after pushsubscriptionchange failed', error);
    }),
  );
});
