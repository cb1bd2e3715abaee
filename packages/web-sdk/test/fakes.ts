import { createECDH } from 'node:crypto';
import type {
  NotificationLike,
  PushEnvironment,
  PushManagerLike,
  PushSubscriptionLike,
  RegistrationLike,
  ServiceWorkerContainerLike,
  ServiceWorkerLike,
  SubscriptionJson,
} from '../src/push-client.js';

/*
 * Small stand-ins for the browser objects the SDK touches, so its state machine and error mapping
 * run in Node. Every call lands in one shared `log`, so a test can assert order (permission before
 * anything else, DELETE before the browser's unsubscribe).
 */

export const PAGE_URL = 'https://shop.example/products/1';
export const BASE_URL = 'https://push.example';
export const API_KEY = 'wpk_test_subscribe_only';
/** A real uncompressed P-256 public key, base64url without padding, as the API sends it. */
export function newVapidKey(): string {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return ecdh.getPublicKey().toString('base64url');
}
export const VAPID_KEY = newVapidKey();

export const bytesOf = (base64url: string) => new Uint8Array(Buffer.from(base64url, 'base64url'));

export class FakeSubscription implements PushSubscriptionLike {
  readonly options: { readonly applicationServerKey: ArrayBuffer | null };
  unsubscribed = false;
  constructor(
    private readonly log: string[],
    readonly endpoint: string,
    key: Uint8Array,
    private readonly onUnsubscribe: (subscription: FakeSubscription) => void = () => {},
  ) {
    this.options = { applicationServerKey: key.slice().buffer };
  }
  toJSON(): SubscriptionJson {
    return { endpoint: this.endpoint, keys: { p256dh: 'BPub', auth: 'sec' } };
  }
  async unsubscribe() {
    this.log.push(`unsubscribe ${this.endpoint}`);
    this.unsubscribed = true;
    this.onUnsubscribe(this);
    return true;
  }
}

export class FakePushManager implements PushManagerLike {
  /** What getSubscription() answers; an unsubscribed subscription is gone from here. */
  subscription: FakeSubscription | null = null;
  /** Every subscription subscribe() made, newest last. */
  readonly created: FakeSubscription[] = [];
  subscribeError: Error | null = null;
  readonly subscribeCalls: { userVisibleOnly: boolean; applicationServerKey: Uint8Array }[] = [];
  private counter = 0;
  constructor(private readonly log: string[]) {}
  async getSubscription() {
    return this.subscription;
  }
  async subscribe(options: { userVisibleOnly: boolean; applicationServerKey: Uint8Array<ArrayBuffer> }) {
    this.log.push('pushManager.subscribe');
    this.subscribeCalls.push(options);
    if (this.subscribeError) throw this.subscribeError;
    const subscription = new FakeSubscription(
      this.log,
      `https://fcm.googleapis.com/fcm/send/fake-${++this.counter}`,
      options.applicationServerKey,
      this.forget,
    );
    this.created.push(subscription);
    this.subscription = subscription;
    return subscription;
  }
  readonly forget = (subscription: FakeSubscription) => {
    if (this.subscription === subscription) this.subscription = null;
  };
  /** A subscription the browser already had, as if made earlier with `key`. */
  adopt(endpoint: string, key: Uint8Array): FakeSubscription {
    this.subscription = new FakeSubscription(this.log, endpoint, key, this.forget);
    return this.subscription;
  }
}

export class FakeWorker implements ServiceWorkerLike {
  private readonly listeners: (() => void)[] = [];
  constructor(
    readonly scriptURL: string,
    public state: string,
  ) {}
  addEventListener(_type: 'statechange', listener: () => void) {
    this.listeners.push(listener);
  }
  /** Whether the code under test listens for this worker's state changes yet. */
  get watched(): boolean {
    return this.listeners.length > 0;
  }
  moveTo(state: string) {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}

export class FakeRegistration implements RegistrationLike {
  active: FakeWorker | null = null;
  waiting: FakeWorker | null = null;
  installing: FakeWorker | null = null;
  readonly pushManager: FakePushManager;
  constructor(
    log: string[],
    readonly scope: string,
  ) {
    this.pushManager = new FakePushManager(log);
  }
}

export class FakeContainer implements ServiceWorkerContainerLike {
  readonly registrations: FakeRegistration[] = [];
  registerError: Error | null = null;
  /** What a newly registered worker does: activate at once, or stay installing for the test to move. */
  installMode: 'activate' | 'installing' = 'activate';
  constructor(private readonly log: string[]) {}
  async register(scriptUrl: string, options?: { scope?: string }) {
    this.log.push(`register ${scriptUrl}`);
    if (this.registerError) throw this.registerError;
    const scope = new URL(options?.scope ?? './', scriptUrl).href;
    let registration = this.registrations.find((candidate) => candidate.scope === scope);
    if (!registration) {
      registration = new FakeRegistration(this.log, scope);
      this.registrations.push(registration);
    }
    const worker = new FakeWorker(scriptUrl, this.installMode === 'activate' ? 'activated' : 'installing');
    if (this.installMode === 'activate') registration.active = worker;
    else registration.installing = worker;
    return registration;
  }
  async getRegistration(clientUrl?: string) {
    const url = clientUrl ?? PAGE_URL;
    return this.registrations
      .filter((registration) => url.startsWith(registration.scope))
      .sort((a, b) => b.scope.length - a.scope.length)[0];
  }
}

export class FakeNotification implements NotificationLike {
  constructor(
    private readonly log: string[],
    public permission: NotificationPermission,
    /** What the visitor answers to the prompt. */
    public answer: NotificationPermission = 'granted',
  ) {}
  async requestPermission() {
    this.log.push('requestPermission');
    if (this.permission === 'default') this.permission = this.answer;
    return this.permission;
  }
}

export interface ApiCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

type Responder = (call: ApiCall) => Response | Promise<Response>;

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** The service's answers as the contract has them; a test overrides one route to inject a failure. */
export function fakeApi(log: string[], overrides: Record<string, Responder> = {}) {
  const calls: ApiCall[] = [];
  const routes: Record<string, Responder> = {
    'GET /api/v1/vapid-public-key': () => json(200, { vapidPublicKey: VAPID_KEY }),
    'POST /api/v1/subscribe': () => json(201, { subscriber: { id: 'sub_1' } }),
    'DELETE /api/v1/subscribe': () => new Response(null, { status: 204 }),
    ...overrides,
  };
  const fetch = async (url: string, init: RequestInit) => {
    const method = init.method ?? 'GET';
    const call: ApiCall = {
      method,
      url,
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    log.push(`${method} ${new URL(url).pathname}`);
    const route = routes[`${method} ${new URL(url).pathname}`];
    if (!route) return json(404, { error: 'not found', code: 'NOT_FOUND' });
    return route(call);
  };
  return { calls, fetch };
}

export interface FakeBrowser {
  log: string[];
  env: PushEnvironment;
  container: FakeContainer;
  notification: FakeNotification;
  api: ReturnType<typeof fakeApi>;
}

export function fakeBrowser(
  options: {
    permission?: NotificationPermission;
    answer?: NotificationPermission;
    api?: Record<string, Responder>;
  } = {},
): FakeBrowser {
  const log: string[] = [];
  const container = new FakeContainer(log);
  const notification = new FakeNotification(log, options.permission ?? 'default', options.answer ?? 'granted');
  const api = fakeApi(log, options.api);
  return {
    log,
    container,
    notification,
    api,
    env: { serviceWorker: container, notification, fetch: api.fetch, pageUrl: PAGE_URL },
  };
}
