import { createECDH, randomBytes } from 'node:crypto';
import type { Config } from '@webpush/config';
import { createDatabase, type DatabaseHandle, planDeliveryChunks } from '@webpush/db';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { testConfig } from './config.js';
import { createIsolatedResources, type IsolatedResources } from './isolation.js';

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  resources: IsolatedResources;
  /** Direct database access for asserting side effects. */
  database: DatabaseHandle;
}

/** What a test may pass to the API's `buildApp` (`BuildOptions` of `@webpush/api/app`). */
export interface AppBuilderOptions {
  logger?: unknown;
  logStream?: unknown;
}

/**
 * `buildApp` of `@webpush/api/app`. Passed in rather than imported: a package must not import an app,
 * and `@webpush/api` itself depends on this package for its tests.
 */
export type AppBuilder<Options extends AppBuilderOptions> = (
  config: Config,
  options: Options,
) => Promise<FastifyInstance>;

export type BuildTestApp<Options extends AppBuilderOptions> = (
  t: Test,
  env?: Record<string, string | undefined>,
  options?: Omit<Options, 'logger'>,
) => Promise<TestContext>;

/**
 * `buildTestApp(t, env, options)` for `buildApp`: the API on its own database and Redis prefix,
 * closed and dropped when the test ends.
 */
export function testAppBuilder<Options extends AppBuilderOptions>(
  buildApp: AppBuilder<Options>,
): BuildTestApp<Options> {
  return async (t, env = {}, options = {} as Omit<Options, 'logger'>) => {
    const resources = await createIsolatedResources();
    const config = testConfig(resources, env);
    let app: FastifyInstance;
    try {
      app = await buildApp(config, { ...options, logger: options.logStream ? undefined : false } as Options);
    } catch (error) {
      await resources.dispose(); // otherwise the file hangs on open connections until tap's timeout
      throw error;
    }
    const database = createDatabase(resources.databaseUrl, { max: 2 });
    t.teardown(async () => {
      await app.close();
      await database.close();
      await resources.dispose();
    });
    return { app, config, resources, database };
  };
}

let emailCounter = 0;
export const uniqueEmail = (label = 'user') => `${label}-${process.pid}-${++emailCounter}@example.com`;

export async function registerUser(app: FastifyInstance, email = uniqueEmail(), password = 'correct horse battery') {
  const response = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { email, password } });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const body = response.json() as {
    user: { id: string; email: string; plan: string; emailVerified: boolean };
    token: string;
  };
  return { ...body, email, password };
}

export async function createApp(app: FastifyInstance, token: string, name = 'Test app') {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: { authorization: `Bearer ${token}` },
    payload: { name },
  });
  if (response.statusCode !== 201) throw new Error(`create app failed: ${response.statusCode} ${response.body}`);
  return (
    response.json() as {
      app: { id: string; name: string; vapidPublicKey: string; createdAt: string; allowedOrigins: string[] };
    }
  ).app;
}

export async function createKey(app: FastifyInstance, token: string, appId: string, scope = 'full') {
  const response = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/keys`,
    headers: { authorization: `Bearer ${token}` },
    payload: { scope },
  });
  if (response.statusCode !== 201) throw new Error(`create key failed: ${response.statusCode} ${response.body}`);
  return response.json() as { key: { id: string; scope: string }; secret: string };
}

/** Revokes an app's API key as its owner (`DELETE /apps/:appId/keys/:keyId`): the answer, to assert on. */
export function revokeKey(
  app: FastifyInstance,
  token: string,
  appId: string,
  keyId: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${appId}/keys/${keyId}`,
    headers: { authorization: `Bearer ${token}` },
  });
}

/** A user with one app and a key of `scope`. */
export async function ownerWithKey(app: FastifyInstance, scope = 'full') {
  const user = await registerUser(app);
  const created = await createApp(app, user.token);
  const key = await createKey(app, user.token, created.id, scope);
  return { user, app: created, key, secret: key.secret };
}

export type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

/** A browser-like subscription with real P-256 keys, on an allow-listed push host. */
export function fakeSubscription(host = 'fcm.googleapis.com') {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return {
    endpoint: `https://${host}/fcm/send/${randomBytes(12).toString('base64url')}`,
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Subscribes a browser as a setup step (`POST /subscribe` with `secret`; anything but 201 throws):
 * what was sent, and the subscriber id the API gave it. `payload` defaults to a fresh fake
 * subscription; tests of subscribe itself call the route and assert on its answer instead.
 */
export async function subscribe<Payload extends object = ReturnType<typeof fakeSubscription>>(
  app: FastifyInstance,
  secret: string,
  payload: Payload = fakeSubscription() as Payload,
): Promise<Payload & { id: string }> {
  const response = await app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload });
  if (response.statusCode !== 201) throw new Error(`subscribe failed: ${response.statusCode} ${response.body}`);
  return { ...payload, id: (response.json() as { subscriber: { id: string } }).subscriber.id };
}

/**
 * Plans a notification's delivery as the worker's fan-out does (its delivery chunks), without
 * sending: engagement counts only for subscriptions a notification was pushed to, and the chunks
 * are that record. For API tests, where no worker runs.
 */
export async function planDelivery(database: DatabaseHandle, notificationId: string): Promise<void> {
  while (!(await planDeliveryChunks(database.db, notificationId, { chunkSize: 500, maxChunks: 10 })).done);
}
