import { createECDH, randomBytes } from 'node:crypto';
import type { Config } from '@webpush/config';
import { type Logger, pino } from 'pino';
import type { Test } from 'tap';
import {
  type FakePushService,
  type FakePushServiceOptions,
  type FakeSubscription,
  startFakePushService,
} from './fake-push-service.js';
import {
  type AppBuilder,
  type AppBuilderOptions,
  bearer,
  type Owner,
  ownerWithKey,
  type TestContext,
  testAppBuilder,
} from './test-app.js';
import { waitForValue } from './wait-for.js';

export interface NotificationStatus {
  id: string;
  status: 'queued' | 'sending' | 'completed' | 'failed';
  targets: number;
  sent: number;
  failed: number;
  expired: number;
  createdAt: string;
  completedAt: string | null;
  failureReasons?: Record<string, number>;
}

/** What the harness gives every worker it starts (`WorkerDeps` of `@webpush/worker/worker` has more). */
export interface InProcessWorkerDeps {
  sender?: unknown;
  log?: Logger;
}

/**
 * `createPushSender` of `@webpush/push`, passed in because that package's own tests depend on this
 * one: the harness's workers send through a sender that trusts the stand-in's certificate.
 */
export type PushSenderFactory<Sender> = (options: {
  allowlist: Config['pushServiceHosts'];
  ca: string;
  timeoutMs: number;
}) => Sender;

/**
 * `startWorker` of `@webpush/worker/worker`, passed in for the same reason as `buildApp`: a package
 * must not import an app.
 */
export type WorkerStarter<Deps extends InProcessWorkerDeps, Worker extends { close(): Promise<unknown> }> = (
  config: Config,
  deps: Deps,
) => Promise<Worker>;

export interface DeliveryHarness<Deps = InProcessWorkerDeps, Worker = { close(): Promise<unknown> }>
  extends TestContext {
  push: FakePushService;
  /**
   * A worker in this process, sending through a sender that trusts the stand-in; closed after the
   * test. `config` changes the harness's configuration for this worker only.
   */
  startInProcessWorker(options?: {
    config?: Config;
    deps?: Omit<Deps, 'sender' | 'log'>;
    /** More options for the sender, e.g. `proxy` to reach the stand-in by a public name through a CONNECT proxy. */
    sender?: Record<string, unknown>;
  }): Promise<Worker>;
  /** A user (plan `enterprise`, so limits stay out of the way) with an app and a `notify` key. */
  owner(): Promise<Owner>;
  /** Subscribes `count` stand-in subscriptions through the API. */
  subscribe(owner: Owner, count: number): Promise<(FakeSubscription & { subscriberId: string })[]>;
  /** Stores `count` stand-in subscriptions directly in PostgreSQL (fast, past the plan's subscriber limit). */
  insertSubscriptions(owner: Owner, count: number): Promise<FakeSubscription[]>;
  notify(owner: Owner, payload: object, path?: string): Promise<{ id: string; targets: number }>;
  status(owner: Owner, id: string): Promise<NotificationStatus>;
  /** Polls GET /notifications/:id until the notification is completed or failed. */
  finished(owner: Owner, id: string, timeoutMs?: number): Promise<NotificationStatus>;
}

export type StartDeliveryHarness<Deps, Worker> = (
  t: Test,
  env?: Record<string, string>,
  pushOptions?: FakePushServiceOptions,
) => Promise<DeliveryHarness<Deps, Worker>>;

/**
 * `deliveryHarness(t, env, pushOptions)` for the API's `buildApp`, the worker's `startWorker` and
 * `createPushSender`: the
 * API and the stand-in push service on one test's database and Redis prefix, ready to start workers
 * (`pushOptions`: the stand-in's, e.g. `{ service: 'apple' }`). Defaults make retries fast
 * (`PUSH_RETRY_BASE_MS=50`) and limits generous; `env` overrides.
 */
export function deliveryHarnessFor<
  Options extends AppBuilderOptions & { pushExtraCa?: string },
  Deps extends InProcessWorkerDeps,
  Worker extends { close(): Promise<unknown> },
>(builders: {
  buildApp: AppBuilder<Options>;
  startWorker: WorkerStarter<Deps, Worker>;
  createPushSender: PushSenderFactory<Deps['sender']>;
}): StartDeliveryHarness<Deps, Worker> {
  const buildTestApp = testAppBuilder(builders.buildApp);
  return async (t, env = {}, pushOptions = {}) => {
    const push = await startFakePushService(pushOptions);
    t.teardown(() => push.close()); // teardowns run last-in first-out: this one after the workers stop
    const context = await buildTestApp(
      t,
      {
        PUSH_SERVICE_HOSTS: push.hostRule,
        RATE_LIMIT_API_KEY_MAX: '100000',
        RATE_LIMIT_REGISTER_MAX: '1000',
        PUSH_RETRY_BASE_MS: '50',
        ...env,
      },
      // the API's own pushes (test notifications) reach the stand-in too
      { pushExtraCa: push.caPem } as Omit<Options, 'logger'>,
    );
    const { app, config, database } = context;
    const workers: Worker[] = [];
    t.teardown(async () => {
      for (const worker of workers) await worker.close();
    });

    const status = async (owner: Owner, id: string) => {
      const response = await app.inject({
        method: 'GET',
        url: `/api/v1/notifications/${id}`,
        headers: bearer(owner.secret),
      });
      if (response.statusCode !== 200)
        throw new Error(`GET /notifications/${id}: ${response.statusCode} ${response.body}`);
      return (response.json() as { notification: NotificationStatus }).notification;
    };

    return {
      ...context,
      push,
      async startInProcessWorker(options = {}) {
        const worker = await builders.startWorker(options.config ?? config, {
          ...options.deps,
          sender: builders.createPushSender({
            allowlist: config.pushServiceHosts,
            ca: push.caPem,
            timeoutMs: 5_000,
            ...options.sender,
          }),
          log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
        } as Deps);
        workers.push(worker);
        return worker;
      },
      async owner() {
        const owner = await ownerWithKey(app, 'notify');
        await database.sql`update users set plan = 'enterprise' where id = ${owner.user.user.id}`;
        return owner;
      },
      async subscribe(owner, count) {
        const subscribed = [];
        for (let i = 0; i < count; i++) {
          const subscription = push.subscribe();
          const response = await app.inject({
            method: 'POST',
            url: '/api/v1/subscribe',
            headers: bearer(owner.secret),
            payload: { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
          });
          if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
          subscribed.push({
            ...subscription,
            subscriberId: (response.json() as { subscriber: { id: string } }).subscriber.id,
          });
        }
        return subscribed;
      },
      async insertSubscriptions(owner, count) {
        const subscriptions = Array.from({ length: count }, () => push.subscribe());
        const rows = subscriptions.map((s) => ({
          app_id: owner.app.id,
          endpoint: s.endpoint,
          p256dh: s.p256dh,
          auth: s.auth,
        }));
        for (let start = 0; start < rows.length; start += 1_000) {
          const page = rows.slice(start, start + 1_000);
          await database.sql`insert into subscriptions ${database.sql(page, 'app_id', 'endpoint', 'p256dh', 'auth')}`;
        }
        return subscriptions;
      },
      async notify(owner, payload, path = '/api/v1/notify') {
        const response = await app.inject({ method: 'POST', url: path, headers: bearer(owner.secret), payload });
        if (response.statusCode !== 202) throw new Error(`${path}: ${response.statusCode} ${response.body}`);
        return (response.json() as { notification: { id: string; targets: number } }).notification;
      },
      status,
      finished: (owner, id, timeoutMs = 20_000) =>
        waitForValue(
          () => status(owner, id),
          (current) => current.status === 'completed' || current.status === 'failed',
          `notification ${id} is completed or failed`,
          { timeoutMs, intervalMs: 50 },
        ),
    };
  };
}

/** A well-formed subscription on the stand-in's host that the stand-in does not know (it answers 404). */
export function unknownToPushService(push: FakePushService) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint: `${push.origin}/push/${randomBytes(12).toString('base64url')}`,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
}
