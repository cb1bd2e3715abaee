import { type ApiTarget, callApi, type FetchLike, fetchVapidKey } from './api-client.js';
import { base64UrlToBytes, sameBytes } from './base64url.js';
import { WebPushError } from './errors.js';
import { subscribeBody } from './subscribe-body.js';
import { targetFromScriptUrl, workerScriptUrl } from './worker-url.js';

/*
 * The few browser objects the SDK touches, as structural types: the real DOM objects fit them, and
 * the unit tests run the same code against small fakes in Node.
 */
export interface SubscriptionJson {
  endpoint?: string;
  keys?: Record<string, string>;
}

export interface PushSubscriptionLike {
  readonly endpoint: string;
  readonly options: { readonly applicationServerKey: ArrayBuffer | null };
  toJSON(): SubscriptionJson;
  unsubscribe(): Promise<boolean>;
}

export interface PushManagerLike {
  getSubscription(): Promise<PushSubscriptionLike | null>;
  subscribe(options: {
    userVisibleOnly: boolean;
    applicationServerKey: Uint8Array<ArrayBuffer>;
  }): Promise<PushSubscriptionLike>;
}

export interface ServiceWorkerLike {
  readonly state: string;
  readonly scriptURL: string;
  addEventListener(type: 'statechange', listener: () => void): void;
}

export interface RegistrationLike {
  readonly active: ServiceWorkerLike | null;
  readonly waiting: ServiceWorkerLike | null;
  readonly installing: ServiceWorkerLike | null;
  readonly pushManager: PushManagerLike;
}

export interface ServiceWorkerContainerLike {
  register(scriptUrl: string, options?: { scope?: string }): Promise<RegistrationLike>;
  getRegistration(clientUrl?: string): Promise<RegistrationLike | undefined>;
}

export interface NotificationLike {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
}

export interface PushEnvironment {
  /** Undefined where the browser lacks service workers, the Push API or notifications. */
  serviceWorker: ServiceWorkerContainerLike | undefined;
  notification: NotificationLike | undefined;
  fetch: FetchLike;
  pageUrl: string;
  /** `navigator.language`; undefined where the browser does not say. */
  language?: string | undefined;
  /** The browser's IANA time zone; undefined where `Intl` does not say. */
  timeZone?: string | undefined;
  /** iOS / iPadOS Safari outside a Home Screen web app, where the Push API is absent. */
  homeScreenRequired?: boolean;
}

export type PushState = 'unsupported' | 'denied' | 'prompt' | 'subscribed' | 'unsubscribed';

export interface WorkerOptions {
  /** URL of the service worker script on the site's own origin. Default `/sw.js`. */
  serviceWorkerUrl?: string;
  /** Registration scope; the default is the folder of `serviceWorkerUrl`. */
  scope?: string;
}

export interface SubscribeOptions extends WorkerOptions, ApiTarget {
  /** Your own user id for this browser; with a `subscribe_only` key it needs `uidSignature`. */
  uid?: string;
  /** Lowercase hex HMAC-SHA-256 of `uid` under your app's identity secret, computed by your server. */
  uidSignature?: string;
  /** Your tags for this browser (at most 20 string pairs); they replace its tags. */
  tags?: Record<string, string>;
  /** HMAC-SHA-256 of the tags (JSON, keys sorted) by your server; needed when the app requires signed tags. */
  tagsSignature?: string;
  /** Unix seconds after which the signatures above stop counting; then they are made over it too. */
  signatureExpires?: number;
  /**
   * The visitor's language (BCP 47), which chooses the translation a send delivers. Default:
   * `navigator.language`. `null`: none is sent.
   */
  language?: string | null;
  /**
   * The visitor's IANA time zone. Default: `Intl.DateTimeFormat().resolvedOptions().timeZone`.
   * `null`: none is sent.
   */
  timeZone?: string | null;
  /**
   * Default true: the service worker reports `shown` and `clicked` for each notification
   * (`POST /events`). False: it reports nothing.
   */
  tracking?: boolean;
}

export interface UnsubscribeOptions extends WorkerOptions, Partial<ApiTarget> {}

export interface SubscribeResult {
  /** The id the service stored the subscription under. */
  subscriberId: string;
  /** False when the service already had this subscription (it answered 200, not 201). */
  created: boolean;
  subscription: SubscriptionJson;
}

const DEFAULT_WORKER_URL = '/sw.js';

function supported(env: PushEnvironment): {
  serviceWorker: ServiceWorkerContainerLike;
  notification: NotificationLike;
} {
  const { serviceWorker, notification } = env;
  if (!serviceWorker || !notification) {
    if (env.homeScreenRequired) {
      throw new WebPushError(
        'home-screen-required',
        'on iOS, web push works once the site is added to the Home Screen',
      );
    }
    throw new WebPushError('unsupported', 'this browser has no web push (on iOS: add the site to the home screen)');
  }
  return { serviceWorker, notification };
}

/** The registration `subscribe()` made: looked up by the worker's own URL, which lies inside its scope. */
async function findRegistration(
  serviceWorker: ServiceWorkerContainerLike,
  env: PushEnvironment,
  options: WorkerOptions,
): Promise<RegistrationLike | undefined> {
  const lookup = new URL(options.scope ?? options.serviceWorkerUrl ?? DEFAULT_WORKER_URL, env.pageUrl).href;
  try {
    return await serviceWorker.getRegistration(lookup);
  } catch (cause) {
    throw new WebPushError('service-worker', 'could not read the service worker registration', { cause });
  }
}

/** `navigator.serviceWorker.ready` would wait forever when the worker's scope does not cover this page. */
function activated(registration: RegistrationLike): Promise<void> {
  if (registration.active) return Promise.resolve();
  const worker = registration.installing ?? registration.waiting;
  if (!worker) return Promise.reject(new WebPushError('service-worker', 'the service worker did not install'));
  return new Promise((resolve, reject) => {
    worker.addEventListener('statechange', () => {
      if (worker.state === 'activated') resolve();
      if (worker.state === 'redundant') {
        reject(new WebPushError('service-worker', 'the service worker failed to install (see its console)'));
      }
    });
  });
}

/** The browser's own words, so a site's error log says more than our summary. */
const because = (cause: unknown) => `: ${(cause as Error | null)?.message ?? String(cause)}`;

/** A NotAllowedError means push permission is refused; anything else is the worker's or browser's trouble. */
function subscribeFailure(cause: unknown): WebPushError {
  const refused = (cause as { name?: unknown } | null)?.name === 'NotAllowedError';
  const reason = refused ? 'permission-denied' : 'service-worker';
  return new WebPushError(reason, `the browser could not create a push subscription${because(cause)}`, { cause });
}

/**
 * The browser's subscription for the app's current key: reused when it was made with that key,
 * replaced when it was not. `replaced` is the endpoint given up, which the service may still hold.
 */
async function pushSubscription(
  pushManager: PushManagerLike,
  applicationServerKey: Uint8Array<ArrayBuffer>,
): Promise<{ subscription: PushSubscriptionLike; fresh: boolean; replaced?: string }> {
  try {
    const existing = await pushManager.getSubscription();
    if (existing && sameBytes(existing.options.applicationServerKey, applicationServerKey)) {
      return { subscription: existing, fresh: false };
    }
    // Made with another key (the app's key was rotated, the app was recreated, or another app used
    // this scope): subscribe() refuses a second key, so start over with the current one.
    if (existing) await existing.unsubscribe();
    const subscription = await pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
    return { subscription, fresh: true, ...(existing ? { replaced: existing.endpoint } : {}) };
  } catch (cause) {
    throw subscribeFailure(cause);
  }
}

/** The page's own language and time zone, else the browser's (`null` from the page: none). */
function browserAttributes(env: PushEnvironment, options: SubscribeOptions): { language?: string; timeZone?: string } {
  const language = options.language === undefined ? env.language : options.language;
  const timeZone = options.timeZone === undefined ? env.timeZone : options.timeZone;
  return {
    // The API takes at most 35 characters; a longer (private-use) tag is left out rather than refused.
    ...(typeof language === 'string' && language !== '' && language.length <= 35 ? { language } : {}),
    ...(typeof timeZone === 'string' && timeZone !== '' ? { timeZone } : {}),
  };
}

export async function subscribe(env: PushEnvironment, options: SubscribeOptions): Promise<SubscribeResult> {
  const { serviceWorker, notification } = supported(env);
  const target: ApiTarget = { baseUrl: options.baseUrl.replace(/\/+$/, ''), apiKey: options.apiKey };

  // Asked first, before any other await: Safari shows the prompt only inside the user's gesture.
  let permission: NotificationPermission;
  try {
    permission = await notification.requestPermission();
  } catch (cause) {
    throw new WebPushError('permission-denied', 'the permission prompt failed', { cause });
  }
  if (permission !== 'granted') {
    throw new WebPushError('permission-denied', `notification permission is "${permission}"`);
  }

  let registration: RegistrationLike;
  try {
    const scriptUrl = workerScriptUrl(
      options.serviceWorkerUrl ?? DEFAULT_WORKER_URL,
      env.pageUrl,
      target,
      options.tracking !== false,
    );
    registration = await serviceWorker.register(scriptUrl, options.scope ? { scope: options.scope } : undefined);
  } catch (cause) {
    throw new WebPushError('service-worker', `the service worker could not be registered${because(cause)}`, { cause });
  }
  await activated(registration);

  const applicationServerKey = base64UrlToBytes(await fetchVapidKey(env.fetch, target));
  const { subscription, fresh, replaced } = await pushSubscription(registration.pushManager, applicationServerKey);
  const json = subscription.toJSON();
  try {
    const { uid, uidSignature, tags, tagsSignature, signatureExpires } = options;
    const audience = { uid, uidSignature, tags, tagsSignature, signatureExpires };
    const body = { ...subscribeBody(subscription), ...audience, ...browserAttributes(env, options) };
    const answer = await callApi(env.fetch, target, 'POST', '/subscribe', body);
    // The endpoint given up is dead: removing it frees its subscriber slot now, not at the next send.
    if (replaced && replaced !== subscription.endpoint)
      await callApi(env.fetch, target, 'DELETE', '/subscribe', { endpoint: replaced }).catch(() => {});
    const id = (answer.body as { subscriber?: { id?: unknown } } | undefined)?.subscriber?.id;
    if (typeof id !== 'string') throw new WebPushError('api', 'the API answered without a subscriber id');
    return { subscriberId: id, created: answer.status === 201, subscription: json };
  } catch (error) {
    // Not stored (e.g. SUBSCRIBER_LIMIT_EXCEEDED): drop the browser's new subscription too, so
    // getState() never reports 'subscribed' for a visitor the service cannot reach.
    if (fresh) await subscription.unsubscribe().catch(() => false);
    throw error;
  }
}

export async function unsubscribe(env: PushEnvironment, options: UnsubscribeOptions = {}): Promise<boolean> {
  const { serviceWorker } = supported(env);
  const registration = await findRegistration(serviceWorker, env, options);
  if (!registration) return false;
  let subscription: PushSubscriptionLike | null;
  try {
    subscription = await registration.pushManager.getSubscription();
  } catch (cause) {
    throw subscribeFailure(cause);
  }
  if (!subscription) return false;

  const worker = registration.active ?? registration.waiting ?? registration.installing;
  const target =
    options.baseUrl && options.apiKey
      ? { baseUrl: options.baseUrl, apiKey: options.apiKey }
      : targetFromScriptUrl(worker?.scriptURL);
  if (!target) {
    throw new WebPushError(
      'service-worker',
      'unsubscribe() needs baseUrl and apiKey: the worker was not registered by subscribe()',
    );
  }
  try {
    await callApi(env.fetch, target, 'DELETE', '/subscribe', { endpoint: subscription.endpoint });
  } catch (error) {
    // Already gone on the service's side: the browser's half still has to go.
    if (!(error instanceof WebPushError && error.code === 'NOT_FOUND')) throw error;
  }
  try {
    return await subscription.unsubscribe();
  } catch (cause) {
    throw subscribeFailure(cause);
  }
}

export async function getState(env: PushEnvironment, options: WorkerOptions = {}): Promise<PushState> {
  if (!env.serviceWorker || !env.notification) return 'unsupported';
  const { permission } = env.notification;
  if (permission === 'denied') return 'denied';
  if (permission !== 'granted') return 'prompt';
  const registration = await findRegistration(env.serviceWorker, env, options);
  const subscription = registration ? await registration.pushManager.getSubscription().catch(() => null) : null;
  return subscription ? 'subscribed' : 'unsubscribed';
}
