import { bytesToBase64Url } from './base64url.js';

interface SubscriptionWithKey {
  readonly options: { readonly applicationServerKey: ArrayBuffer | null };
  toJSON(): { endpoint?: string; keys?: Record<string, string> };
}

/**
 * The subscription as `POST /subscribe` takes it, with the key it was made with, so the service
 * pushes it with that key even when the app's key was rotated meanwhile.
 */
export function subscribeBody(subscription: SubscriptionWithKey) {
  const key = subscription.options.applicationServerKey;
  return { ...subscription.toJSON(), ...(key ? { applicationServerKey: bytesToBase64Url(key) } : {}) };
}
