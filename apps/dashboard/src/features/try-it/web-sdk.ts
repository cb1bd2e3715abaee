/** The part of the web SDK (served at /sdk/web-sdk.js, global `WebPush`) the "Try it" page uses. */
export interface WebPushSdk {
  subscribe(options: { baseUrl: string; apiKey: string; serviceWorkerUrl?: string }): Promise<{
    subscriberId: string;
    created: boolean;
    subscription: { endpoint?: string; keys?: Record<string, string> };
  }>;
  getState(options?: {
    serviceWorkerUrl?: string;
  }): Promise<'unsupported' | 'denied' | 'prompt' | 'subscribed' | 'unsubscribed'>;
}

declare global {
  interface Window {
    WebPush?: WebPushSdk;
  }
}

/** The worker as this service serves it; its scope is /sdk/, away from the dashboard's pages. */
export const DASHBOARD_WORKER_URL = '/sdk/sw.js';

let loading: Promise<WebPushSdk> | null = null;

/** Loads /sdk/web-sdk.js once, as a customer's site would (an external script: the CSP allows it). */
export function loadWebPushSdk(): Promise<WebPushSdk> {
  if (window.WebPush) return Promise.resolve(window.WebPush);
  loading ??= new Promise<WebPushSdk>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/sdk/web-sdk.js';
    script.async = true;
    script.onload = () => (window.WebPush ? resolve(window.WebPush) : reject(new Error('The web SDK did not load.')));
    script.onerror = () => {
      script.remove();
      loading = null;
      reject(new Error('The web SDK (/sdk/web-sdk.js) could not be loaded.'));
    };
    document.head.append(script);
  });
  return loading;
}

/** This browser's subscription under the dashboard's worker, as the test-notification route wants it. */
export async function currentSubscription(): Promise<{ endpoint: string; p256dh: string; auth: string } | null> {
  const registration = await navigator.serviceWorker.getRegistration(DASHBOARD_WORKER_URL);
  const subscription = await registration?.pushManager.getSubscription();
  const json = subscription?.toJSON();
  if (!json?.endpoint || !json.keys?.p256dh || !json.keys.auth) return null;
  return { endpoint: json.endpoint, p256dh: json.keys.p256dh, auth: json.keys.auth };
}
