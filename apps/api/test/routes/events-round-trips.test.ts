import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { assertError } from '../assertions.js';
import {
  bearer,
  buildTestApp,
  createKey,
  fakeSubscription,
  notTheRequestsOwn,
  ownerWithKey,
  planDelivery,
} from '../helper.js';

// POST /events on the hot path: the key's principal from the instance's cache, no statement to
// PostgreSQL, and one command to Redis (the API-key limit and the buffered event in one script).
// Statements are counted with the postgres.js `debug` hook; Redis commands at the ioredis client.
const statements: string[] = [];
const ctx = await buildTestApp(
  t,
  {
    API_KEY_CACHE_TTL_MS: '60000',
    RATE_LIMIT_API_KEY_MAX: '6',
    RATE_LIMIT_REGISTER_MAX: '1000',
    EVENTS_FLUSH_INTERVAL_MS: '600000',
  },
  { onQuery: (query) => statements.push(query) },
);
const { app } = ctx;

const redisCommands: string[] = [];
function countRedisCommands(instance: FastifyInstance) {
  const redis = instance.redis as unknown as { sendCommand(command: { name: string }): unknown };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command) => {
    redisCommands.push(command.name);
    return send(command);
  };
}
countRedisCommands(app);

let nextAddress = 1;
const newAddress = () => `10.9.0.${nextAddress++}`;

const owner = await ownerWithKey(app, 'notify');
const browser = await createKey(app, owner.user.token, owner.app.id, 'subscribe_only');
const subscription = fakeSubscription();
const subscribed = await app.inject({
  method: 'POST',
  url: '/api/v1/subscribe',
  headers: bearer(browser.secret),
  payload: subscription,
  remoteAddress: newAddress(),
});
if (subscribed.statusCode !== 201) throw new Error(`subscribe: ${subscribed.statusCode} ${subscribed.body}`);
const sent = await app.inject({
  method: 'POST',
  url: '/api/v1/notify',
  headers: bearer(owner.secret),
  payload: { title: 'T', body: 'B' },
  remoteAddress: newAddress(),
});
const notificationId = sent.json<{ notification: { id: string } }>().notification.id;
await planDelivery(ctx.database, notificationId);

const report = (payload: object, remoteAddress: string, secret = browser.secret) =>
  app.inject({ method: 'POST', url: '/api/v1/events', headers: bearer(secret), payload, remoteAddress });

async function counted(event: object, remoteAddress: string) {
  statements.length = 0;
  redisCommands.length = 0;
  const response = await report(event, remoteAddress);
  return { response, statements: statements.filter((query) => !notTheRequestsOwn(query)), redis: [...redisCommands] };
}

async function shownAndClicked() {
  const [row] = await ctx.database.sql`select shown, clicked from notifications where id = ${notificationId}`;
  return { shown: row?.shown, clicked: row?.clicked };
}

t.test('an event: no PostgreSQL statement and one Redis command', async (t) => {
  const address = newAddress();
  // The first request of the key looks it up; the script is loaded once (NOSCRIPT, then EVAL).
  t.equal((await report({ notificationId, endpoint: subscription.endpoint, type: 'shown' }, address)).statusCode, 202);

  const shown = await counted({ notificationId, endpoint: subscription.endpoint, type: 'shown' }, address);
  t.equal(shown.response.statusCode, 202);
  t.strictSame(shown.statements, [], 'no statement');
  t.equal(shown.redis.length, 1, `one Redis command: ${shown.redis.join(', ')}`);
  t.equal(shown.response.headers['x-ratelimit-limit'], '6');
  t.equal(shown.response.headers['x-ratelimit-remaining'], '4', 'the two requests counted');

  const click = await counted(
    { notificationId, endpoint: subscription.endpoint, type: 'clicked', action: 'open' },
    address,
  );
  t.equal(click.response.statusCode, 202);
  t.strictSame(click.statements, []);
  t.equal(click.redis.length, 1);

  const flushed = await app.engagement.flush();
  t.equal(flushed.counted, 2, 'shown once, clicked once: checked and counted by the flush');
  t.strictSame(await shownAndClicked(), { shown: 1, clicked: 1 });
});

t.test('an endpoint or a notification the app does not have: the same answer and cost, nothing counted', async (t) => {
  const address = newAddress();
  const other = await ownerWithKey(app, 'notify');
  const otherSent = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(other.secret),
    payload: { title: 'T', body: 'B' },
    remoteAddress: newAddress(),
  });
  const otherId = otherSent.json<{ notification: { id: string } }>().notification.id;
  for (const event of [
    { notificationId, endpoint: 'https://fcm.googleapis.com/fcm/send/nobody', type: 'clicked' },
    { notificationId: otherId, endpoint: subscription.endpoint, type: 'clicked' },
    { notificationId: 'test', endpoint: subscription.endpoint, type: 'clicked' },
  ]) {
    const result = await counted(event, address);
    t.equal(result.response.statusCode, 202);
    t.strictSame(result.statements, []);
    t.equal(result.redis.length, 1);
  }
  t.equal((await app.engagement.flush()).counted, 0);
  t.strictSame(await shownAndClicked(), { shown: 1, clicked: 1 });
});

t.test('/events spends the same per-IP budget as the other API-key routes, also when it fails', async (t) => {
  const address = newAddress();
  const vapid = () =>
    app.inject({
      method: 'GET',
      url: '/api/v1/vapid-public-key',
      headers: bearer(browser.secret),
      remoteAddress: address,
    });
  const event = { notificationId, endpoint: subscription.endpoint, type: 'clicked' };
  for (let i = 0; i < 3; i++) {
    t.equal((await vapid()).statusCode, 200);
    t.equal((await report(event, address)).statusCode, 202);
  }
  redisCommands.length = 0;
  const refused = await report(event, address);
  assertError(t, refused, 'RATE_LIMITED');
  t.equal(refused.headers['retry-after'], '60');
  t.equal(redisCommands.length, 1, 'counted and refused in the same command');
  assertError(t, await vapid(), 'RATE_LIMITED');
  const buffered = await app.redis.lrange(`${ctx.config.redisKeyPrefix}:engagement:buffer`, 0, -1);
  t.equal(buffered.length, 3, 'the refused event was not buffered');
  await app.engagement.flush();

  const failing = newAddress();
  const bad = 'wpk_not-a-key-of-this-service-at-all-000000000';
  for (let i = 0; i < 3; i++) assertError(t, await report(event, failing, bad), 'INVALID_API_KEY');
  for (let i = 0; i < 3; i++) assertError(t, await report({ type: 'clicked' }, failing), 'MISSING_FIELDS');
  assertError(t, await report(event, failing, bad), 'RATE_LIMITED');
  assertError(t, await report(event, failing), 'RATE_LIMITED');
});

t.test('events that arrive together are counted and buffered in one Redis command', async (t) => {
  await app.engagement.flush();
  const listKey = `${ctx.config.redisKeyPrefix}:engagement:buffer`;
  const event = { notificationId, endpoint: subscription.endpoint, type: 'shown' };
  // Ten clients, one request each, and one client with more requests than its budget (6).
  const clients = Array.from({ length: 10 }, () => newAddress());
  const greedy = newAddress();
  redisCommands.length = 0;
  const [spread, burst] = await Promise.all([
    Promise.all(clients.map((address) => report(event, address))),
    Promise.all(Array.from({ length: 8 }, () => report(event, greedy))),
  ]);
  t.strictSame(
    spread.map((response) => response.statusCode),
    clients.map(() => 202),
  );
  t.strictSame(
    spread.map((response) => response.headers['x-ratelimit-remaining']),
    clients.map(() => '5'),
    'each client counted on its own counter',
  );
  const statuses = burst.map((response) => response.statusCode).sort();
  t.strictSame(statuses, [202, 202, 202, 202, 202, 202, 429, 429], 'the greedy client: six within its budget');
  t.ok(
    redisCommands.length < spread.length + burst.length,
    `${redisCommands.length} Redis commands for ${spread.length + burst.length} requests: ${redisCommands.join(', ')}`,
  );
  t.equal(await app.redis.llen(listKey), 16, 'the ten events and the greedy six buffered; the refused two not');
  await app.engagement.flush();
});
