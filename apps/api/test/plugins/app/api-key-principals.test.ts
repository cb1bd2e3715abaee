import {
  notifyPrincipalChange,
  type PrincipalChange,
  principalNotifyChannel,
  publishPrincipalChange,
} from '@webpush/queue';
import { testCoordination, waitFor } from '@webpush/testing';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import t from 'tap';
import { buildApp } from '#src/app.js';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, createKey, ownerWithKey, revokeKey } from '../../helper.js';

// Two API instances on one PostgreSQL and one Redis, each keeping API-key principals for a minute:
// longer than any test here, so only the invalidation can explain a refusal. In-process coordination
// serves exactly one API process (a second is refused: health.test.ts), so there "the other instance"
// is that same one, and a change made elsewhere arrives as `pnpm admin` sends it, by PostgreSQL NOTIFY.
const mode = testCoordination();
const statementsOne: string[] = [];
const statementsTwo: string[] = mode === 'redis' ? [] : statementsOne;
const ctx = await buildTestApp(
  t,
  {
    API_KEY_CACHE_TTL_MS: '60000',
    API_KEY_CACHE_SIZE: '3',
    RATE_LIMIT_API_KEY_MAX: '100000',
    RATE_LIMIT_REGISTER_MAX: '1000',
  },
  { onQuery: (query) => statementsOne.push(query) },
);
const one = ctx.app;
const two: FastifyInstance =
  mode === 'redis' ? await buildApp(ctx.config, { logger: false, onQuery: (query) => statementsTwo.push(query) }) : one;
if (two !== one) t.teardown(() => two.close());

/** Tells the running API instances of a change as another process (`pnpm admin`) does. */
async function announce(change: PrincipalChange) {
  if (mode === 'process') return notifyPrincipalChange(ctx.database.sql, ctx.config.redisKeyPrefix, change);
  const publisher = new Redis(ctx.resources.redisUrl);
  try {
    await publishPrincipalChange(publisher, ctx.config.redisKeyPrefix, change);
  } finally {
    await publisher.quit();
  }
}

// The key lookup statement (packages/db findApiKeyPrincipal), however it is written.
const keyLookups = (statements: string[]) =>
  statements.filter((query) => /from "?api_keys"? k\b|from "api_keys"/i.test(query)).length;

async function vapidKey(app: FastifyInstance, secret: string, origin?: string) {
  return app.inject({
    method: 'GET',
    url: '/api/v1/vapid-public-key',
    headers: { ...bearer(secret), ...(origin ? { origin } : {}) },
  });
}

t.test('a key is looked up once per instance, then served from its cache', async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  statementsOne.length = 0;
  statementsTwo.length = 0;
  for (let i = 0; i < 5; i++) {
    t.equal((await vapidKey(one, owner.secret)).statusCode, 200);
    t.equal((await vapidKey(two, owner.secret)).statusCode, 200);
  }
  t.equal(keyLookups(statementsOne), 1, 'instance one asked PostgreSQL once');
  t.equal(keyLookups(statementsTwo), 1, 'instance two asked PostgreSQL once');
});

t.test('a key revoked on one instance is refused by the other as soon as the revoke answers', async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  const spare = await createKey(one, owner.user.token, owner.app.id, 'notify');
  for (const app of [one, two]) {
    t.equal((await vapidKey(app, owner.secret)).statusCode, 200, 'cached');
    t.equal((await vapidKey(app, spare.secret)).statusCode, 200, 'cached');
  }
  const revoke = await revokeKey(one, owner.user.token, owner.app.id, owner.key.key.id);
  t.equal(revoke.statusCode, 204);
  assertError(t, await vapidKey(two, owner.secret), 'INVALID_API_KEY');
  assertError(t, await vapidKey(one, owner.secret), 'INVALID_API_KEY');
  t.equal((await vapidKey(two, spare.secret)).statusCode, 200, "the app's other key still works");
  t.equal((await vapidKey(one, spare.secret)).statusCode, 200);
});

t.test('an app deleted on one instance: its keys are refused by the other at once', async (t) => {
  const owner = await ownerWithKey(two, 'full');
  t.equal((await vapidKey(one, owner.secret)).statusCode, 200, 'cached on one');
  const deleted = await two.inject({
    method: 'DELETE',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
  });
  t.equal(deleted.statusCode, 204);
  assertError(t, await vapidKey(one, owner.secret), 'INVALID_API_KEY');
});

t.test('an app change on one instance applies on the other at once', async (t) => {
  const owner = await ownerWithKey(one, 'subscribe_only');
  t.equal((await vapidKey(two, owner.secret, 'https://shop.example')).statusCode, 200, 'any origin, cached');
  const patched = await one.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: { allowedOrigins: ['https://www.example.com'] },
  });
  t.equal(patched.statusCode, 200, patched.body);
  assertError(t, await vapidKey(two, owner.secret, 'https://shop.example'), 'ORIGIN_NOT_ALLOWED');
  t.equal((await vapidKey(two, owner.secret, 'https://www.example.com')).statusCode, 200);

  const rotated = await two.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/vapid-key/rotate`,
    headers: bearer(owner.user.token),
  });
  t.equal(rotated.statusCode, 200, rotated.body);
  const fresh = await vapidKey(one, owner.secret, 'https://www.example.com');
  t.equal(
    fresh.json<{ vapidPublicKey: string }>().vapidPublicKey,
    rotated.json<{ app: { vapidPublicKey: string } }>().app.vapidPublicKey,
    'the new VAPID key at once',
  );
});

t.test(
  "an account's change published by another process (pnpm admin set-plan) drops its keys everywhere",
  async (t) => {
    const owner = await ownerWithKey(one, 'notify');
    const bystander = await ownerWithKey(one, 'notify');
    for (const secret of [owner.secret, bystander.secret]) t.equal((await vapidKey(two, secret)).statusCode, 200);
    statementsTwo.length = 0;
    await announce({ userId: owner.user.user.id });
    await waitFor(async () => {
      await vapidKey(two, owner.secret);
      return keyLookups(statementsTwo) > 0;
    }, "the owner's key looked up again");
    statementsTwo.length = 0;
    await vapidKey(two, bystander.secret);
    t.equal(keyLookups(statementsTwo), 0, "another account's key is still held");
  },
);

t.test('a key removed from the database by another process is refused once the change is announced', async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  t.equal((await vapidKey(two, owner.secret)).statusCode, 200, 'cached');
  await ctx.database.sql`delete from api_keys where id = ${owner.key.key.id}`;
  t.equal((await vapidKey(two, owner.secret)).statusCode, 200, 'until then the cache answers, not PostgreSQL');
  await announce({ appId: owner.app.id });
  await waitFor(async () => (await vapidKey(two, owner.secret)).statusCode === 401, 'the key refused');
  assertError(t, await vapidKey(two, owner.secret), 'INVALID_API_KEY');
});

/** Ends the connections the API instances listen on for changes; resolves how many there were. */
async function cutListeners(): Promise<number> {
  if (mode === 'process') {
    // postgres.js listens on a connection of its own, whose last statement is its LISTEN.
    const ended = await ctx.database.sql<{ pid: number }[]>`
      select pg_terminate_backend(pid), pid from pg_stat_activity
      where datname = current_database() and query = ${`listen "${principalNotifyChannel(ctx.config.redisKeyPrefix)}"`}`;
    return ended.length;
  }
  // Only this run's listeners (both instances share the key prefix, so the name): the Redis is
  // shared with other test files.
  const admin = new Redis(ctx.resources.redisUrl);
  try {
    const name = `${ctx.config.redisKeyPrefix}:api-key-listener`;
    const listeners = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
      .split('\n')
      .filter((line) => line.includes(` name=${name} `))
      .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
    for (const id of listeners) if (id) await admin.client('KILL', 'ID', id);
    return listeners.length;
  } finally {
    await admin.quit();
  }
}

t.test('a listener cut off keeps nothing until it is back, then caches and hears at once again', async (t) => {
  const owner = await ownerWithKey(one, 'notify');
  const spare = await createKey(one, owner.user.token, owner.app.id, 'notify');
  t.equal((await vapidKey(two, owner.secret)).statusCode, 200);
  t.ok(two.apiKeyPrincipals.size > 0, 'cached');
  // Only this run's listeners (both instances share the key prefix, so the name): the Redis is
  // shared with other test files.
  t.equal(await cutListeners(), mode === 'redis' ? 2 : 1, 'one listener per instance, found by its name');
  await waitFor(() => two.apiKeyPrincipals.size === 0, 'the instance emptied its cache');
  await waitFor(
    async () => (await vapidKey(two, spare.secret)).statusCode === 200 && two.apiKeyPrincipals.size > 0,
    'it caches again once its listener is back',
  );
  await waitFor(
    async () => (await vapidKey(one, spare.secret)).statusCode === 200 && one.apiKeyPrincipals.size > 0,
    'the other instance too',
  );
  if (mode === 'redis') {
    const revoke = await revokeKey(one, owner.user.token, owner.app.id, spare.key.id);
    t.equal(revoke.statusCode, 204);
    assertError(t, await vapidKey(two, spare.secret), 'INVALID_API_KEY');
  } else {
    // One process drops its own changes without its listener: only a change from elsewhere shows it hears.
    await ctx.database.sql`delete from api_keys where id = ${spare.key.id}`;
    await announce({ appId: owner.app.id });
    await waitFor(async () => (await vapidKey(two, spare.secret)).statusCode === 401, 'the removed key refused');
  }
});

t.test('what travels through Redis or NOTIFY names the app, never a key or its hash', async (t) => {
  const messages: string[] = [];
  if (mode === 'redis') {
    const listener = new Redis(ctx.resources.redisUrl);
    t.teardown(() => listener.quit());
    await listener.psubscribe(`${ctx.config.redisKeyPrefix}:*`);
    listener.on('pmessage', (_pattern: string, _channel: string, message: string) => messages.push(message));
  } else {
    const channel = principalNotifyChannel(ctx.config.redisKeyPrefix);
    const listener = await ctx.database.sql.listen(channel, (message) => messages.push(message));
    t.teardown(() => listener.unlisten());
  }

  const owner = await ownerWithKey(one, 'notify');
  await vapidKey(two, owner.secret);
  const revoke = await revokeKey(one, owner.user.token, owner.app.id, owner.key.key.id);
  t.equal(revoke.statusCode, 204);
  // NOTIFY reaches another session's listener when that session next reads: not bound to the answer.
  if (mode === 'process') await waitFor(() => messages.length > 0, 'the change on the PostgreSQL channel');
  t.equal(messages.length, 1, messages.join(' / '));
  t.match(messages[0], new RegExp(`^app\\|${owner.app.id}\\|[0-9a-f-]{36}$`));
  t.notOk(messages.some((message) => message.includes(owner.secret.slice(4, 20))));
});

t.test('the cache holds at most API_KEY_CACHE_SIZE principals', async (t) => {
  const owners = await Promise.all([1, 2, 3, 4, 5].map(() => ownerWithKey(one, 'notify')));
  for (const owner of owners) t.equal((await vapidKey(two, owner.secret)).statusCode, 200);
  t.equal(two.apiKeyPrincipals.size, 3);
  statementsTwo.length = 0;
  const newest = owners.at(-1);
  if (newest) await vapidKey(two, newest.secret);
  t.equal(keyLookups(statementsTwo), 0, 'the most recently used is still held');
  const oldest = owners[0];
  if (oldest) await vapidKey(two, oldest.secret);
  t.equal(keyLookups(statementsTwo), 1, 'the least recently used was let go');
});
