import { callApi, type FetchLike } from './api-client.js';
import { creditedClick, type LastClick } from './last-click.js';

export interface ConversionEnvironment {
  fetch: FetchLike;
  /** The click the service worker stored, if any. */
  lastClick(): Promise<LastClick | undefined>;
  now(): number;
}

/**
 * Reports a conversion for the notification this browser last clicked within 7 days
 * (`POST /events`, counted once per notification and subscription). False when there is no such
 * click; the API's refusal (a `value` out of 0–1,000,000,000: INVALID_INPUT) throws.
 */
export async function trackConversion(env: ConversionEnvironment, value?: number): Promise<boolean> {
  const click = creditedClick(await env.lastClick(), env.now());
  if (!click) return false;
  const { baseUrl, apiKey, notificationId, endpoint } = click;
  const event = { notificationId, endpoint, type: 'converted', ...(value === undefined ? {} : { value }) };
  await callApi(env.fetch, { baseUrl, apiKey }, 'POST', '/events', event);
  return true;
}
