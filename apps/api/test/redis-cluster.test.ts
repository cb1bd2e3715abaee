import {
  closeRedisConnection,
  createRedisConnection,
  isCluster,
  masterConnections,
  principalChangesChannel,
  publishPrincipalChange,
} from '@webpush/queue';
import { endProcessIfHeldOpen, startRedisCluster, testRedisUrl, waitFor } from '@webpush/testing';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import t from 'tap';
import { buildApp } from '../src/app.js';
import { assertError } from './assertions.js';
import { bearer, buildTestApp, createKey, fakeSubscription, ownerWithKey, revokeKey, uniqueEmail } from './helper.js';

// Two API instances on one real Redis Cluster (3 masters, 3 replicas, started here on free ports).
// REDIS_URL points at a port nothing listens on: with REDIS_CLUSTER_NODES set it must not be used.
const cluster = await startRedisCluster();
t.teardown(async () => {
  await cluster.close();
  endProcessIfHeldOpen();
});

const ctx = await buildTestApp(t, {
  REDIS_CLUSTER_NODES: cluster.seeds,
  REDIS_URL: 'redis://127.0.0.1:1',
  RATE_LIMIT_API_KEY_MAX: '10',
  RATE_LIMIT_LOGIN_MAX: '4',
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: '3',
  OPS_USERNAME: 'ops',
  OPS_PASSWORD: 'ops-password',
  EVENTS_FLUSH_INTERVAL_MS: '600000',
  API_KEY_CACHE_TTL_MS: '60000',
});
const one = ctx.app;
const two: FastifyInstance = await buildApp(ctx.config, { logger: false });
t.teardown(() => two.close());
const instances = [one, two];
const prefix = ctx.config.redisKeyPrefix;

let nextAddress = 10;
const newAddress = () => `10.7.0.${nextAddress++}`;
/** The i-th request goes to instance i mod 2. */
const alternate = (i: number, request: InjectOptions) => (instances[i % 2] as FastifyInstance).inject(request);
/** Every key matching `pattern` on every master of the cluster. */
async function clusterKeys(pattern: string): Promise<string[]> {
  const keys: string[] = [];
  for (const node of masterConnections(one.redis)) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
  }
  return keys;
}
const ops = { authorization: `Basic ${Buffer.from('ops:ops-password').toString('base64')}` };

t.test('both instances talk to the cluster', async (t) => {
  for (const app of instances) {
    t.ok(isCluster(app.redis), 'a cluster client');
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    t.equal(ready.statusCode, 200, ready.body);
    t.match(ready.json(), { redis: 'ok' });
  }
});

t.test('the API-key limit is one budget across both instances', async (t) => {
  const owner = await ownerWithKey(one, 'subscribe_only');
  const remoteAddress = newAddress();
  const request = { method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(owner.secret), remoteAddress };
  for (let i = 0; i < 10; i++) {
    const response = await alternate(i, request);
    t.equal(response.statusCode, 200, `request ${i + 1} (instance ${(i % 2) + 1})`);
  }
  for (const app of instances) assertError(t, await app.inject(request), 'RATE_LIMITED');
  const [counter, ...others] = await clusterKeys(`${prefix}:rate-limit:*api-key:${remoteAddress}`);
  t.strictSame(others, [], 'one counter');
  t.equal(counter && (await one.redis.get(counter)), '12', 'it lives in the cluster and counted all 12');
});

t.test('the login limit is shared too', async (t) => {
  const remoteAddress = newAddress();
  const request = {
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: uniqueEmail(), password: 'not the password' },
    remoteAddress,
  } as const;
  for (let i = 0; i < 4; i++) assertError(t, await alternate(i, request), 'INVALID_CREDENTIALS');
  assertError(t, await two.inject(request), 'RATE_LIMITED');
  assertError(t, await one.inject(request), 'RATE_LIMITED');
});

t.test('the per-app cap on new subscriptions (a Lua script) counts both instances', async (t) => {
  const owner = await ownerWithKey(one, 'subscribe_only');
  for (let i = 0; i < 3; i++) {
    const response = await alternate(i, {
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: bearer(owner.secret),
      payload: fakeSubscription(),
      remoteAddress: newAddress(),
    });
    t.equal(response.statusCode, 201, response.body);
  }
  const fourth = await two.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: fakeSubscription(),
    remoteAddress: newAddress(),
  });
  assertError(t, fourth, 'RATE_LIMITED');
});

t.test('the engagement buffer is one list for both instances; a flush takes it under the lock', async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  const browser = await createKey(one, owner.user.token, owner.app.id, 'subscribe_only');
  const subscription = fakeSubscription();
  const subscribed = await one.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(browser.secret),
    payload: subscription,
    remoteAddress: newAddress(),
  });
  t.equal(subscribed.statusCode, 201);
  const sent = await one.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(owner.secret),
    payload: { title: 'T', body: 'B' },
  });
  t.equal(sent.statusCode, 202, sent.body);
  const id = sent.json<{ notification: { id: string } }>().notification.id;
  const listKey = `${prefix}:engagement:buffer`;
  for (let i = 0; i < 4; i++) {
    const response = await alternate(i, {
      method: 'POST',
      url: '/api/v1/events',
      headers: bearer(browser.secret),
      payload: { notificationId: id, endpoint: subscription.endpoint, type: i < 2 ? 'shown' : 'clicked' },
      remoteAddress: newAddress(),
    });
    t.equal(response.statusCode, 202);
  }
  t.equal(await one.redis.llen(listKey), 4, 'four events buffered in the cluster');
  // The trim script takes the lock key and the list together: on a cluster that is a CROSSSLOT
  // error unless both hash to one slot.
  const flushed = await two.engagement.flush();
  t.equal(flushed.batches, 1, 'one batch read, counted and trimmed');
  t.equal(await one.redis.llen(listKey), 0, 'the buffer is empty');
  t.equal(await one.engagement.flush().then((result) => result.batches), 0, 'nothing left for the other');
});

t.test(
  'a key revoked on one instance is refused by the other as soon as the revoke answers (sharded pub/sub)',
  async (t) => {
    const owner = await ownerWithKey(one, 'notify');
    const request = { method: 'GET' as const, url: '/api/v1/vapid-public-key', headers: bearer(owner.secret) };
    for (const app of instances) {
      t.equal((await app.inject({ ...request, remoteAddress: newAddress() })).statusCode, 200, 'cached');
    }
    const cachedOnTwo = two.apiKeyPrincipals.size;
    const revoked = await revokeKey(one, owner.user.token, owner.app.id, owner.key.key.id);
    t.equal(revoked.statusCode, 204);
    // Both instances listen on the master of the channel's slot, which writes the message to every
    // listener in the same pass: once the revoke answers, the other instance has it too. The cache's
    // TTL is 60 s here, so only the message can have dropped the entry.
    t.ok(two.apiKeyPrincipals.size < cachedOnTwo, 'the other instance dropped it');
    assertError(t, await two.inject({ ...request, remoteAddress: newAddress() }), 'INVALID_API_KEY');
    assertError(t, await one.inject({ ...request, remoteAddress: newAddress() }), 'INVALID_API_KEY');
  },
);

t.test('a listener cut off keeps nothing until it hears again, then caches and hears at once', async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  const request = { method: 'GET' as const, url: '/api/v1/vapid-public-key', headers: bearer(owner.secret) };
  t.equal((await two.inject({ ...request, remoteAddress: newAddress() })).statusCode, 200);
  t.ok(two.apiKeyPrincipals.size > 0, 'cached');
  // Every master drops its pub/sub clients: both instances' listeners.
  let killed = 0;
  for (const node of masterConnections(one.redis)) killed += Number(await node.client('KILL', 'TYPE', 'pubsub'));
  t.ok(killed >= 2, `both listeners cut off (${killed} connections)`);
  await waitFor(() => two.apiKeyPrincipals.size === 0, 'the other instance emptied its cache');
  await waitFor(
    async () =>
      (await two.inject({ ...request, remoteAddress: newAddress() })).statusCode === 200 &&
      two.apiKeyPrincipals.size > 0,
    'it caches again once it hears its own message',
  );
  const revoked = await revokeKey(one, owner.user.token, owner.app.id, owner.key.key.id);
  t.equal(revoked.statusCode, 204);
  assertError(t, await two.inject({ ...request, remoteAddress: newAddress() }), 'INVALID_API_KEY');
});

t.test('Bull Board, /metrics and the failed-ops-login counter work on the cluster', async (t) => {
  await one.queues.fanOut.add('fan-out', { notificationId: '00000000-0000-4000-8000-000000000001' });
  const board = await two.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: ops });
  t.equal(board.statusCode, 200, board.body);
  const names = board.json<{ queues: { name: string }[] }>().queues.map((queue) => queue.name);
  t.strictSame(names.sort(), ['deliveries', 'fan-out', 'webhooks']);
  const metrics = await one.inject({ method: 'GET', url: '/metrics', headers: ops });
  t.equal(metrics.statusCode, 200);
  t.match(metrics.body, /webpush_queue_jobs\{queue="fan-out",state="waiting"\} [1-9]/);

  const remoteAddress = newAddress();
  for (let i = 0; i < 4; i++) {
    const wrong = await alternate(i, {
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` },
      remoteAddress,
    });
    assertError(t, wrong, 'UNAUTHORIZED');
  }
  // The failures were counted together across both instances: the next wrong attempt, on either,
  // is refused unchecked; the right credentials still pass (they are never locked out).
  const locked = await one.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Basic ${Buffer.from('ops:wrong').toString('base64')}` },
    remoteAddress,
  });
  assertError(t, locked, 'RATE_LIMITED');
  const right = await two.inject({ method: 'GET', url: '/metrics', headers: ops, remoteAddress });
  t.equal(right.statusCode, 200, 'the operator is not locked out');
});

t.test('with REDIS_CLUSTER_NODES set, nothing is written to REDIS_URL', async (t) => {
  // REDIS_URL is unreachable here, so every check above went to the cluster; and the single Redis
  // the other tests use holds nothing under this file's prefix.
  const single = new Redis(testRedisUrl(), { lazyConnect: true, maxRetriesPerRequest: 1 });
  await single.connect();
  t.teardown(() => single.disconnect());
  for (const pattern of [`${prefix}*`, `{${prefix}}*`]) {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await single.scan(cursor, 'MATCH', pattern, 'COUNT', 10_000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    t.strictSame(keys, [], pattern);
  }
});

t.test("an account's change published by another process (pnpm admin set-plan) reaches both instances", async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  const request = { method: 'GET' as const, url: '/api/v1/vapid-public-key', headers: bearer(owner.secret) };
  for (const app of instances) {
    t.equal((await app.inject({ ...request, remoteAddress: newAddress() })).statusCode, 200, 'cached');
  }
  const sizes = instances.map((app) => app.apiKeyPrincipals.size);
  const publisher = createRedisConnection(ctx.config, 'producer');
  t.teardown(() => closeRedisConnection(publisher));
  // As `pnpm admin` does: its commands are not queued while it connects.
  if (publisher.status !== 'ready') await new Promise((resolve) => publisher.once('ready', resolve));
  await publishPrincipalChange(publisher, prefix, { userId: owner.user.user.id });
  await waitFor(
    () => instances.every((app, i) => app.apiKeyPrincipals.size < (sizes[i] ?? 0)),
    "both instances dropped the account's key",
  );
  t.pass('both instances dropped it');
});

// Last: it moves a slot to another node, which the tests above do not expect.
t.test("a failover of the channel's master: revokes are still refused everywhere within the second", async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  const spare = await createKey(one, owner.user.token, owner.app.id, 'notify');
  const requestWith = (secret: string) => ({
    method: 'GET' as const,
    url: '/api/v1/vapid-public-key',
    headers: bearer(secret),
    remoteAddress: newAddress(),
  });
  for (const secret of [owner.secret, spare.secret]) {
    t.equal((await two.inject(requestWith(secret))).statusCode, 200, 'cached');
  }
  // A graceful failover: the old master's connections stay open, but it drops their subscriptions.
  const { demoted, promoted } = await cluster.failoverMasterOf(principalChangesChannel(prefix));
  t.comment(`the channel's slot moved from :${demoted.port} to :${promoted.port}`);
  // The old master's unsubscribe reaches the listener with the move itself: it lets go of its
  // cache then, not at its next look at the cluster's slots (every 2 s).
  await waitFor(() => two.apiKeyPrincipals.size === 0, 'the other instance emptied its cache', { timeoutMs: 500 });
  const revoked = await revokeKey(one, owner.user.token, owner.app.id, owner.key.key.id);
  t.equal(revoked.statusCode, 204);
  // The TTL is 60 s: only the listener's handling of the move can make the other instance refuse.
  const started = Date.now();
  await waitFor(
    async () => (await two.inject(requestWith(owner.secret))).statusCode !== 200,
    'the other instance refuses the revoked key',
    { timeoutMs: 1_000, intervalMs: 5 },
  );
  assertError(t, await two.inject(requestWith(owner.secret)), 'INVALID_API_KEY');
  t.ok(Date.now() - started <= 1_000, `refused by the other instance (${Date.now() - started} ms after the revoke)`);

  // Both listen on the new master again: a revoke is refused everywhere as soon as it answers.
  for (const app of instances) {
    await waitFor(
      async () => (await app.inject(requestWith(spare.secret))).statusCode === 200 && app.apiKeyPrincipals.size > 0,
      'each instance caches again once it hears its own message',
    );
  }
  const second = await revokeKey(one, owner.user.token, owner.app.id, spare.key.id);
  t.equal(second.statusCode, 204);
  assertError(t, await two.inject(requestWith(spare.secret)), 'INVALID_API_KEY');
});
