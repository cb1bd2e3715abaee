interface SubscribeOptions {
  baseUrl: string;
  apiKey: string;
  serviceWorkerUrl?: string;
}

export interface SubscribeResult {
  subscriberId: string;
  created: boolean;
  subscription: { endpoint?: string; keys?: Record<string, string> };
}

/** What the soft prompt settled with (`@webpush/web-sdk/prompt`). */
export interface PromptAnswer {
  outcome: string;
  result?: SubscribeResult;
  error?: unknown;
}

/**
 * The part of the web SDK (served at /sdk/web-sdk.js, global `WebPush`, and its soft prompt at
 * /sdk/web-sdk-prompt.js, `WebPush.prompt`) the "Try it" page uses.
 */
export interface WebPushSdk {
  subscribe(options: SubscribeOptions): Promise<SubscribeResult>;
  prompt: {
    showPrompt(options: {
      subscribe: SubscribeOptions;
      language?: 'ja' | 'en';
      text?: { title?: string; body?: string };
      ignoreRememberedNo?: boolean;
      onAccept?: () => void;
      signal?: AbortSignal;
    }): Promise<PromptAnswer>;
  };
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

function loadScript(src: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    script.async = false;
    script.onload = () => resolve();
    script.onerror = () => {
      script.remove();
      reject(new Error(`The web SDK (${src}) could not be loaded.`));
    };
    document.head.append(script);
  });
}

/**
 * Loads /sdk/web-sdk.js and its soft prompt once, as a customer's site would (external scripts: the
 * CSP allows them; the prompt's styles are a constructed sheet, which `style-src 'self'` allows).
 */
export function loadWebPushSdk(): Promise<WebPushSdk> {
  if (window.WebPush?.prompt) return Promise.resolve(window.WebPush);
  loading ??= (async () => {
    try {
      if (!window.WebPush) await loadScript('/sdk/web-sdk.js');
      await loadScript('/sdk/web-sdk-prompt.js');
    } catch (error) {
      loading = null;
      throw error;
    }
    if (!window.WebPush?.prompt) throw new Error('The web SDK did not load.');
    return window.WebPush;
  })();
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
