/*
 * The service worker a site serves from its own origin (copy dist/sw.js to /sw.js, or put
 * `importScripts('https://<service>/sdk/sw.js')` in its own worker). Built as a plain script, no
 * modules. It shows the service's pushes, opens their `url` on click, reports `shown` and
 * `clicked` to the service (unless the site passed `tracking: false`) and keeps the subscription
 * alive when the browser rotates it. The service's address, the app's API key and the tracking
 * switch come from this script's own URL (`/sw.js?baseUrl=…&apiKey=…[&tracking=0]`), which
 * `subscribe()` registers.
 */
import { type ApiTarget, callApi, fetchVapidKey } from './api-client.js';
import { base64UrlToBytes, sameBytes } from './base64url.js';
import { subscribeBody } from './subscribe-body.js';
import { targetFromScriptUrl, trackingFromScriptUrl } from './worker-url.js';

const worker = self as unknown as ServiceWorkerGlobalScope;

interface PushPayload {
  title: string;
  body: string;
  url?: string;
  icon?: string;
  badge?: string;
  /** The notification's id, which engagement events are reported with. */
  id?: string;
}

const optionalString = (value: unknown) => value === undefined || typeof value === 'string';

/** The contract's payload `{title, body, url?, icon?, badge?, id?}`, or null for anything else. */
function readPayload(data: PushMessageData | null): PushPayload | null {
  if (!data) return null;
  let value: unknown;
  try {
    value = data.json();
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const fields = value as Record<string, unknown>;
  if (typeof fields.title !== 'string' || typeof fields.body !== 'string') return null;
  if (!['url', 'icon', 'badge', 'id'].every((name) => optionalString(fields[name]))) return null;
  return fields as unknown as PushPayload;
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
async function report(type: 'shown' | 'clicked', notificationId: unknown): Promise<void> {
  const target = targetFromScriptUrl(worker.location.href);
  if (!target || typeof notificationId !== 'string' || !trackingFromScriptUrl(worker.location.href)) return;
  try {
    const subscription = await worker.registration.pushManager.getSubscription();
    if (subscription)
      await callApi(fetch, target, 'POST', '/events', { notificationId, endpoint: subscription.endpoint, type });
  } catch (error) {
    console.warn(`[webpush] could not report "${type}"`, error);
  }
}

worker.addEventListener('push', (event) => {
  const payload = readPayload(event.data);
  if (!payload) {
    console.warn('[webpush] ignored a push whose payload is not {title, body, url?, icon?, badge?}');
    return;
  }
  const options: NotificationOptions = { body: payload.body, data: { url: payload.url, id: payload.id } };
  if (payload.icon) options.icon = payload.icon;
  if (payload.badge) options.badge = payload.badge;
  // Reported once the notification is up, so it never waits on the network.
  event.waitUntil(worker.registration.showNotification(payload.title, options).then(() => report('shown', payload.id)));
});

async function focusOrOpen(url: string): Promise<void> {
  const target = new URL(url, worker.location.href).href;
  const windows = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((client) => client.url === target);
  if (open) await open.focus();
  else await worker.clients.openWindow(target);
}

worker.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data as { url?: unknown; id?: unknown } | null;
  // Side by side: opening the url does not wait for the report.
  const clicked = report('clicked', data?.id);
  event.waitUntil(typeof data?.url === 'string' ? Promise.all([focusOrOpen(data.url), clicked]) : clicked);
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
