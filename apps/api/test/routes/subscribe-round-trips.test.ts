import t from 'tap';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// POST /subscribe of a new endpoint, with the per-app cap off (the default): the API-key lookup and
// one subscribe statement, nothing else. A known endpoint: the same statement finds it, then the update. Counted
// with the postgres.js `debug` hook, which sees every statement the API sends.
const statements: string[] = [];
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000' }, { onQuery: (query) => statements.push(query) });
const { app } = ctx;
const owner = await ownerWithKey(app, 'notify');

async function subscribeCounted(payload: object) {
  statements.length = 0;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload,
  });
  return { response, sent: [...statements] };
}

t.test('a new endpoint: one subscribe statement beside the key lookup', async (t) => {
  const subscription = fakeSubscription();
  const { response, sent } = await subscribeCounted(subscription);
  t.equal(response.statusCode, 201, response.body);
  t.ok(sent.length <= 2, `${sent.length} statements: ${sent.join(' | ')}`);
  t.equal(sent.filter((query) => /insert into subscriptions/i.test(query)).length, 1);

  const again = await subscribeCounted({ ...subscription, uid: 'carol' });
  t.equal(again.response.statusCode, 200, 'a known endpoint is updated');
  t.equal(
    again.response.json<{ subscriber: { id: string } }>().subscriber.id,
    response.json<{ subscriber: { id: string } }>().subscriber.id,
  );
  t.ok(again.sent.length <= 3, `${again.sent.length} statements: ${again.sent.join(' | ')}`);
  const [row] = await ctx.database.sql`select uid from subscriptions where endpoint = ${subscription.endpoint}`;
  t.equal(row?.uid, 'carol');
});

t.test("a deleted app's key subscribes nothing", async (t) => {
  const gone = await ownerWithKey(app, 'notify');
  await ctx.database.sql`delete from apps where id = ${gone.app.id}`;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(gone.secret),
    payload: fakeSubscription(),
  });
  t.equal(response.statusCode, 401);
});

t.test('subscribes that arrive together share one Redis command for their API-key counts', async (t) => {
  const redis = app.redis as unknown as { sendCommand(command: { name: string }): unknown };
  const send = redis.sendCommand.bind(redis);
  const commands: string[] = [];
  redis.sendCommand = (command) => {
    commands.push(command.name);
    return send(command);
  };
  t.teardown(() => {
    redis.sendCommand = send;
  });
  const addresses = Array.from({ length: 12 }, (_, index) => `10.77.0.${index + 1}`);
  const responses = await Promise.all(
    addresses.map((remoteAddress) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/subscribe',
        headers: bearer(owner.secret),
        payload: fakeSubscription(),
        remoteAddress,
      }),
    ),
  );
  t.strictSame(
    responses.map((response) => response.statusCode),
    addresses.map(() => 201),
  );
  t.strictSame(
    responses.map((response) => response.headers['x-ratelimit-remaining']),
    addresses.map(() => '99999'),
    'each client counted once, on its own counter',
  );
  t.ok(commands.length < addresses.length, `${commands.length} Redis commands for ${addresses.length} subscribes`);
});
