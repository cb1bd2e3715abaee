import type { ApiTarget } from './api-client.js';

/*
 * The service worker needs the service's address and the app's API key to re-subscribe on
 * `pushsubscriptionchange` and to report engagement events, when no page is open. They travel as
 * query parameters of the worker's own script URL (`/sw.js?baseUrl=…&apiKey=…`): the browser keeps
 * that URL with the registration, the worker reads it from `self.location`, and `unsubscribe()`
 * reads it back from the registration. The key is a `subscribe_only` key, public by design (it is
 * in the page too). `tracking=0` is there when the site turned engagement events off.
 */

export function workerScriptUrl(scriptUrl: string, pageUrl: string, target: ApiTarget, tracking = true): string {
  const url = new URL(scriptUrl, pageUrl);
  url.searchParams.set('baseUrl', target.baseUrl);
  url.searchParams.set('apiKey', target.apiKey);
  if (!tracking) url.searchParams.set('tracking', '0');
  return url.href;
}

/** False when the worker was registered with `tracking: false`: it then reports no engagement event. */
export const trackingFromScriptUrl = (scriptUrl: string): boolean =>
  new URL(scriptUrl).searchParams.get('tracking') !== '0';

export function targetFromScriptUrl(scriptUrl: string | undefined): ApiTarget | null {
  if (!scriptUrl) return null;
  const params = new URL(scriptUrl).searchParams;
  const baseUrl = params.get('baseUrl');
  const apiKey = params.get('apiKey');
  return baseUrl && apiKey ? { baseUrl, apiKey } : null;
}
