import t from 'tap';
import { bearer, buildTestApp, fakeSubscription, notTheRequestsOwn, ownerWithKey } from '../helper.js';

// POST /subscribe of a new endpoint, with the per-app cap off (the default): the API-key lookup and
// one subscribe statement, nothing else. A known endpoint: the same statement finds it, then the update. Counted
// with the postgres.js `debug` hook, which sees every statement the API sends.
const statements: string[] = [];
const ctx = await buildTestApp(
  t,
  { RATE_LIMIT_API_KEY_MAX: '100000', API_KEY_CACHE_TTL_MS: '60000' },
  { onQuery: (query) => statements.push(query) },
);
const { app } = ctx;
const owner = await ownerWithKey(app, 'notify');

const subscribe = (secret: string, payload: object, remoteAddress?: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(secret),
    payload,
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });

async function subscribeCounted(payload: object) {
  statements.length = 0;
  const response = await subscribe(owner.secret, payload);
  return { response, sent: statements.filter((query) => !notTheRequestsOwn(query)) };
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
  const response = await subscribe(gone.secret, fakeSubscription());
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
    addresses.map((remoteAddress) => subscribe(owner.secret, fakeSubscription(), remoteAddress)),
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

t.test('new subscriptions that arrive together are stored by one statement, each answered as alone', async (t) => {
  // Each owner's first subscribe takes the exact path of the plan limit; the batch takes the fast one.
  const other = await ownerWithKey(app, 'notify');
  const warm = await subscribe(other.secret, fakeSubscription());
  t.equal(warm.statusCode, 201);
  const known = fakeSubscription();
  const knownFirst = await subscribe(owner.secret, known);
  t.equal(knownFirst.statusCode, 201);
  const repeated = fakeSubscription();
  const payloads = [
    ...Array.from({ length: 8 }, () => ({ secret: owner.secret, payload: fakeSubscription() })),
    ...Array.from({ length: 4 }, () => ({ secret: other.secret, payload: fakeSubscription() })),
    { secret: owner.secret, payload: { ...known, uid: 'dave' } },
    { secret: owner.secret, payload: repeated },
    { secret: owner.secret, payload: { ...repeated, tags: { plan: 'gold' } } },
  ];
  statements.length = 0;
  const responses = await Promise.all(payloads.map(({ secret, payload }) => subscribe(secret, payload)));
  const sent = [...statements];
  const statuses = responses.map((response) => response.statusCode);
  t.strictSame(statuses.slice(0, 13), [...Array.from({ length: 12 }, () => 201), 200], 'new ones 201, a known one 200');
  t.strictSame(statuses.slice(13).sort(), [200, 201], 'an endpoint twice in one batch: stored, then re-subscribed');
  const inserts = sent.filter((query) => /insert into subscriptions/i.test(query));
  t.equal(inserts.filter((query) => query.includes('json_to_recordset')).length, 1, 'one statement for the batch');
  // The repeated endpoint's second subscribe goes alone: its insert finds the row, then its update.
  t.equal(inserts.length, 2, `${sent.length} statements for 15 subscribes of two owners`);
  const ids = responses.map((response) => response.json<{ subscriber: { id: string } }>().subscriber.id);
  t.equal(new Set(ids).size, 14, 'one id per endpoint');
  t.equal(ids[12], knownFirst.json<{ subscriber: { id: string } }>().subscriber.id);
  t.equal(ids[13], ids[14]);
  const [dave] = await ctx.database.sql`select uid from subscriptions where endpoint = ${known.endpoint}`;
  t.equal(dave?.uid, 'dave', 'the known endpoint was updated');
  const [gold] = await ctx.database.sql`select tags from subscriptions where endpoint = ${repeated.endpoint}`;
  t.strictSame(gold?.tags, { plan: 'gold' }, 'the second subscribe of an endpoint applied after the first');
  for (const [who, count] of [
    [owner, 11],
    [other, 5],
  ] as const) {
    const [row] = await ctx.database.sql<{ counter: number; real: number }[]>`
      select (select sum(active)::int from subscriber_counters where user_id = ${who.user.user.id}) as counter,
        (select count(*)::int from subscriptions where app_id = ${who.app.id} and status = 'active') as real`;
    t.ok(row && row.counter === row.real, `the owner's count equals its subscriptions (${JSON.stringify(row)})`);
    if (who === other) t.equal(row?.real, count);
  }
});
