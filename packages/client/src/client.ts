import createClient from 'openapi-fetch';
import { toWebPushError } from './errors.js';
import type { paths } from './openapi.js';
import { fetchWithRetries, type RetryOptions } from './retry.js';

type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer R;
}
  ? JsonBody<NonNullable<R>>
  : never;
type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? JsonBody<R[S]>
    : never
  : never;

export type NotifyRequest = RequestBody<'/api/v1/notify', 'post'>;
export type NotifyResponse = Answer<'/api/v1/notify', 'post', 202>;
export type NotifyBatchRequest = RequestBody<'/api/v1/notify/batch', 'post'>;
export type NotifyBatchResponse = Answer<'/api/v1/notify/batch', 'post', 202>;
export type NotificationResponse = Answer<'/api/v1/notifications/{id}', 'get', 200>;
export type Notification = NotificationResponse['notification'];
export type CancelResponse = Answer<'/api/v1/notifications/{id}', 'delete', 200>;
type SubscribeBody = RequestBody<'/api/v1/subscribe', 'post'>;
/**
 * The flat `{endpoint, p256dh, auth}` or the browser's `PushSubscription.toJSON()` shape
 * `{endpoint, keys: {p256dh, auth}}`, with the optional `uid`, `uidSignature` and `tags`.
 */
export type SubscribeRequest =
  | SubscribeBody
  | (Omit<SubscribeBody, 'p256dh' | 'auth' | 'keys'> & { keys: { p256dh: string; auth: string } });
export type SubscribeResponse = Answer<'/api/v1/subscribe', 'post', 201>;
export type UpdateSubscriptionRequest = RequestBody<'/api/v1/subscribe', 'patch'>;
export type UpdateSubscriptionResponse = Answer<'/api/v1/subscribe', 'patch', 200>;
export type TestNotificationRequest = RequestBody<'/api/v1/apps/{appId}/test-notification', 'post'>;
export type TestNotificationResponse = Answer<'/api/v1/apps/{appId}/test-notification', 'post', 200>;

export interface WebPushClientOptions extends RetryOptions {
  /** An API key (`wpk_…`) of the app: `notify` or `full` to send, any scope to subscribe. */
  apiKey: string;
  /** The service's address (its PUBLIC_URL), e.g. `https://push.example.com`. */
  baseUrl: string;
  /** A `fetch` to send with (tests, proxies); default: the global one. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface SendOptions {
  /**
   * The key that makes a send happen once, whatever the retries: the same key from the same app
   * within 24 h answers the first answer and queues nothing new. Default: a new UUID per call,
   * kept across that call's retries. Pass your own (e.g. your order id) to make a send idempotent
   * across calls or processes too.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

async function unwrap<T>(request: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) throw toWebPushError(response, error);
  return data as T;
}

/**
 * The client of the service's API-key routes, typed from its OpenAPI document. Every method
 * resolves with the answer's body or rejects with a WebPushError (`code`, `status`, `error`).
 */
export function createWebPushClient(options: WebPushClientOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: fetchWithRetries(baseFetch, options),
  });
  const idempotencyKey = (send: SendOptions) => send.idempotencyKey ?? globalThis.crypto.randomUUID();

  return {
    /** The typed openapi-fetch client underneath, for anything the methods do not cover. */
    api,

    /** POST /notify: every active subscriber of the app, or one `endpoint`, some `uids` or `tags`. */
    notify(body: NotifyRequest, send: SendOptions = {}): Promise<NotifyResponse> {
      return unwrap(
        api.POST('/api/v1/notify', {
          body,
          params: { header: { 'idempotency-key': idempotencyKey(send) } },
          signal: send.signal,
        }),
      );
    },

    /** POST /notify/batch: up to 100 endpoints; `unknownEndpoints` lists those the app does not have. */
    notifyBatch(body: NotifyBatchRequest, send: SendOptions = {}): Promise<NotifyBatchResponse> {
      return unwrap(
        api.POST('/api/v1/notify/batch', {
          body,
          params: { header: { 'idempotency-key': idempotencyKey(send) } },
          signal: send.signal,
        }),
      );
    },

    /** GET /notifications/{id}: status and counts (`sent + failed + expired == targets` once completed). */
    async getNotification(id: string): Promise<Notification> {
      const answer = await unwrap(api.GET('/api/v1/notifications/{id}', { params: { path: { id } } }));
      return answer.notification;
    },

    /** DELETE /notifications/{id}: cancels a scheduled send (409 NOT_CANCELABLE once it started). */
    async cancelNotification(id: string): Promise<Notification> {
      const answer = await unwrap(api.DELETE('/api/v1/notifications/{id}', { params: { path: { id } } }));
      return answer.notification as Notification;
    },

    /** POST /subscribe: stores a browser's subscription (new or updated: the same endpoint is one subscriber). */
    subscribe(subscription: SubscribeRequest): Promise<SubscribeResponse> {
      const body: SubscribeBody = 'p256dh' in subscription ? subscription : { ...subscription, ...subscription.keys };
      return unwrap(api.POST('/api/v1/subscribe', { body }));
    },

    /** PATCH /subscribe: changes the uid (`null` removes it) or the tags of a stored subscription. */
    updateSubscription(body: UpdateSubscriptionRequest): Promise<UpdateSubscriptionResponse> {
      return unwrap(api.PATCH('/api/v1/subscribe', { body }));
    },

    /** DELETE /subscribe: forgets a subscription. */
    async unsubscribe(endpoint: string): Promise<void> {
      await unwrap(api.DELETE('/api/v1/subscribe', { body: { endpoint } }));
    },

    /** POST /apps/{appId}/test-notification (a `full` key): one push now, stored and counted nowhere. */
    sendTestNotification(appId: string, body: TestNotificationRequest): Promise<TestNotificationResponse> {
      return unwrap(api.POST('/api/v1/apps/{appId}/test-notification', { params: { path: { appId } }, body }));
    },

    /** GET /vapid-public-key: the app's current key, for `pushManager.subscribe`. */
    async vapidPublicKey(): Promise<string> {
      const answer = await unwrap(api.GET('/api/v1/vapid-public-key'));
      return answer.vapidPublicKey;
    },
  };
}

export type WebPushClient = ReturnType<typeof createWebPushClient>;
