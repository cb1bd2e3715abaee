/*
 * The service worker a site serves from its own origin (copy dist/sw.js to /sw.js, or put
 * `importScripts('https://<service>/sdk/sw.js')` in its own worker). Built as a plain script, no
 * modules. It shows the service's pushes, opens their `url` on click and keeps the subscription
 * alive when the browser rotates it. The service's address and the app's API key come from this
 * script's own URL (`/sw.js?baseUrl=…&apiKey=…`), which `subscribe()` registers.
 */
import { type ApiTarget, callApi, fetchVapidKey } from './api-client.js';
import { base64UrlToBytes } from './base64url.js';
import { targetFromScriptUrl } from './worker-url.js';

const worker = self as unknown as ServiceWorkerGlobalScope;

interface PushPayload {
  title: string;
  body: string;
  url?: string;
  icon?: string;
  badge?: string;
}

const optionalString = (value: unknown) => value === undefined || typeof value === 'string';

/** The contract's payload `{title, body, url?, icon?, badge?}`, or null for anything else. */
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
  if (!optionalString(fields.url) || !optionalString(fields.icon) || !optionalString(fields.badge)) return null;
  return fields as unknown as PushPayload;
}

worker.addEventListener('install', () => {
  // Push only, no fetch handler: nothing in a page depends on which version runs, so a new one
  // (another API key, an SDK update) takes over at once instead of waiting for every tab to close.
  void worker.skipWaiting();
});

worker.addEventListener('push', (event) => {
  const payload = readPayload(event.data);
  if (!payload) {
    console.warn('[webpush] ignored a push whose payload is not {title, body, url?, icon?, badge?}');
    return;
  }
  const options: NotificationOptions = { body: payload.body, data: { url: payload.url } };
  if (payload.icon) options.icon = payload.icon;
  if (payload.badge) options.badge = payload.badge;
  event.waitUntil(worker.registration.showNotification(payload.title, options));
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
  const url = (event.notification.data as { url?: unknown } | null)?.url;
  if (typeof url !== 'string') return;
  event.waitUntil(focusOrOpen(url));
});

async function renewSubscription(event: PushSubscriptionChangeEvent, target: ApiTarget): Promise<void> {
  const applicationServerKey =
    event.oldSubscription?.options.applicationServerKey ?? base64UrlToBytes(await fetchVapidKey(fetch, target));
  const renewed =
    event.newSubscription ??
    (await worker.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey }));
  await callApi(fetch, target, 'POST', '/subscribe', renewed.toJSON());
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
