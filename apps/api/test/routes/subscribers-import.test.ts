import { subscriberCounted } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// POST /apps/{appId}/subscribers/import (docs/migrating.md, "The import API").
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;
interface ImportAnswer {
  imported: number;
  updated: number;
  rejected: { index: number; code: string }[];
}

const importInto = (owner: Owner, subscribers: unknown, appId = owner.app.id) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/subscribers/import`,
    headers: bearer(owner.user.token),
    payload: { subscribers } as object,
  });

/** The browser's `PushSubscription.toJSON()` shape. */
const browserShape = (extra: object = {}) => {
  const { endpoint, p256dh, auth } = fakeSubscription();
  return { endpoint, expirationTime: null, keys: { p256dh, auth }, ...extra };
};

const stored = (appId: string) =>
  sql<{ endpoint: string; p256dh: string; uid: string | null; tags: Record<string, string>; status: string }[]>`
    select endpoint, p256dh, uid, tags, status from subscriptions where app_id = ${appId} order by endpoint`;

const setPlan = (owner: Owner, plan: string) => sql`update users set plan = ${plan} where id = ${owner.user.user.id}`;

t.test('entries are stored, updated on a second import, and counted exactly', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const entries = [browserShape({ uid: 'user-1', tags: { lang: 'ja' } }), browserShape(), browserShape()];
  const first = await importInto(owner, entries);
  t.equal(first.statusCode, 200);
  t.strictSame(first.json(), { imported: 3, updated: 0, rejected: [] });
  const rows = await stored(owner.app.id);
  t.equal(rows.length, 3);
  const tagged = rows.find((row) => row.endpoint === entries[0]?.endpoint);
  t.match(tagged, { uid: 'user-1', tags: { lang: 'ja' }, status: 'active', p256dh: entries[0]?.keys.p256dh });
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 3, real: 3 });

  // The same request again: nothing more is stored or counted.
  const again = await importInto(owner, entries);
  t.strictSame(again.json(), { imported: 0, updated: 3, rejected: [] }, 'a retry only updates');
  t.strictSame(await stored(owner.app.id), rows, 'a retry changes nothing');
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 3, real: 3 });

  // An endpoint the app has takes the new keys, uid and tags; absent uid and tags stay.
  const renewed = { ...browserShape({ tags: { lang: 'en' } }), endpoint: entries[0]?.endpoint };
  const kept = { ...browserShape(), endpoint: entries[1]?.endpoint, uid: 'user-2' };
  t.strictSame((await importInto(owner, [renewed, kept])).json(), { imported: 0, updated: 2, rejected: [] });
  const after = await stored(owner.app.id);
  t.match(
    after.find((row) => row.endpoint === renewed.endpoint),
    {
      uid: 'user-1',
      tags: { lang: 'en' },
      p256dh: renewed.keys.p256dh,
    },
  );
  t.match(
    after.find((row) => row.endpoint === kept.endpoint),
    { uid: 'user-2', tags: {} },
  );

  // The flat shape POST /subscribe also takes.
  const flat = fakeSubscription();
  t.strictSame((await importInto(owner, [flat])).json(), { imported: 1, updated: 0, rejected: [] });
});

t.test('each entry is checked as POST /subscribe checks it, and refused alone', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const good = browserShape();
  const { keys } = browserShape();
  const entries: unknown[] = [
    { ...browserShape(), endpoint: 'https://push.evil.example/abc' }, // 0: not an allowed push host
    { endpoint: 'http://fcm.googleapis.com/fcm/send/x', keys }, // 1: not https
    { endpoint: good.endpoint.replace('abc', 'd'), keys: { p256dh: keys.p256dh } }, // 2: no auth
    { ...browserShape(), keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: keys.auth } }, // 3: off the curve
    { ...browserShape(), keys: { ...keys, auth: 'c2hvcnQ' } }, // 4: auth not 16 bytes
    browserShape({ tags: { 'bad key!': 'x' } }), // 5
    browserShape({ uid: '' }), // 6
    'not an object', // 7
    null, // 8
    good, // 9
    browserShape({ uidSignature: 'ignored: the owner imports', uid: 'u' }), // 10
  ];
  const response = await importInto(owner, entries);
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), {
    imported: 2,
    updated: 0,
    rejected: [
      { index: 0, code: 'INVALID_ENDPOINT' },
      { index: 1, code: 'INVALID_URL' },
      { index: 2, code: 'MISSING_FIELDS' },
      { index: 3, code: 'INVALID_INPUT' },
      { index: 4, code: 'INVALID_INPUT' },
      { index: 5, code: 'INVALID_INPUT' },
      { index: 6, code: 'INVALID_INPUT' },
      { index: 7, code: 'INVALID_INPUT' },
      { index: 8, code: 'INVALID_INPUT' },
    ],
  });
  t.strictSame(
    (await stored(owner.app.id)).map((row) => row.endpoint).sort(),
    [good.endpoint, (entries[10] as { endpoint: string }).endpoint].sort(),
  );
});

t.test('language and time zone are taken as POST /subscribe takes them', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const entries = [
    browserShape({ language: 'ja-JP', timeZone: 'asia/tokyo' }),
    browserShape({ timeZone: 'Mars/Olympus' }),
    browserShape({ language: 'x'.repeat(36) }),
    browserShape({ language: 'en-US' }),
  ];
  const answer = await importInto(owner, entries);
  t.equal(answer.statusCode, 200);
  t.strictSame(answer.json(), {
    imported: 2,
    updated: 0,
    rejected: [
      { index: 1, code: 'INVALID_INPUT' },
      { index: 2, code: 'INVALID_INPUT' },
    ],
  });
  const rows = await sql<{ endpoint: string; language: string | null; time_zone: string | null }[]>`
    select endpoint, language, time_zone from subscriptions where app_id = ${owner.app.id}`;
  const of = (entry: { endpoint: string }) => rows.find((row) => row.endpoint === entry.endpoint);
  t.match(of(entries[0] as { endpoint: string }), { language: 'ja-JP', time_zone: 'Asia/Tokyo' }, 'as Intl names it');
  t.match(of(entries[3] as { endpoint: string }), { language: 'en-US', time_zone: null });

  // A second import replaces each one present and keeps the others.
  const again = { ...(entries[0] as object), language: undefined, timeZone: 'Europe/Paris' };
  t.strictSame((await importInto(owner, [again])).json(), { imported: 0, updated: 1, rejected: [] });
  const [row] = await sql<{ language: string; time_zone: string }[]>`
    select language, time_zone from subscriptions where endpoint = ${(entries[0] as { endpoint: string }).endpoint}`;
  t.strictSame({ ...row }, { language: 'ja-JP', time_zone: 'Europe/Paris' });
});

t.test('an endpoint given twice is one subscription, the later entry winning', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const first = browserShape({ uid: 'first' });
  const second = { ...browserShape({ tags: { k: 'v' } }), endpoint: first.endpoint };
  t.strictSame((await importInto(owner, [first, second])).json(), { imported: 1, updated: 1, rejected: [] });
  t.match(await stored(owner.app.id), [{ uid: 'first', tags: { k: 'v' }, p256dh: second.keys.p256dh }]);
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 1, real: 1 });
});

t.test("a 1,001-entry import to a Free app takes 1,000: the plan's limit, in list order", async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const entries = Array.from({ length: 1_001 }, () => browserShape());
  const response = await importInto(owner, entries);
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), {
    imported: 1_000,
    updated: 0,
    rejected: [{ index: 1_000, code: 'SUBSCRIBER_LIMIT_EXCEEDED' }],
  });
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 1_000, real: 1_000 });
  const [refused] = await sql`select 1 from subscriptions where endpoint = ${entries[1_000]?.endpoint ?? ''}`;
  t.equal(refused, undefined, 'the refused entry is not stored');

  // At the limit, an endpoint the app has is still updated; a new one is refused, and so is POST /subscribe.
  const renewed = { ...browserShape(), endpoint: entries[5]?.endpoint };
  const answer = (await importInto(owner, [browserShape(), renewed])).json() as ImportAnswer;
  t.strictSame(answer, { imported: 0, updated: 1, rejected: [{ index: 0, code: 'SUBSCRIBER_LIMIT_EXCEEDED' }] });
  const key = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/keys`,
    headers: bearer(owner.user.token),
    payload: { scope: 'subscribe_only' },
  });
  const secret = (key.json() as { secret: string }).secret;
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: bearer(secret),
      payload: fakeSubscription(),
    }),
    'SUBSCRIBER_LIMIT_EXCEEDED',
  );

  // A slot freed by a delete is taken by the next import's first new entry, and only that one.
  await app.inject({
    method: 'DELETE',
    url: '/api/v1/subscribe',
    headers: bearer(secret),
    payload: { endpoint: entries[0]?.endpoint },
  });
  const refill = (await importInto(owner, [browserShape(), browserShape()])).json() as ImportAnswer;
  t.strictSame(refill, { imported: 1, updated: 0, rejected: [{ index: 1, code: 'SUBSCRIBER_LIMIT_EXCEEDED' }] });
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 1_000, real: 1_000 });
});

t.test('an expired subscription imported again is re-activated, and takes a slot', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const entries = [browserShape(), browserShape()];
  await importInto(owner, entries);
  await sql`
    with expired as (
      update subscriptions set status = 'expired', expired_at = now()
      where app_id = ${owner.app.id} and status = 'active' returning 1
    )
    select release_subscriber_slots(${owner.user.user.id}, (select count(*) from expired)::int)`;
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 0, real: 0 });
  t.strictSame((await importInto(owner, entries)).json(), { imported: 0, updated: 2, rejected: [] });
  t.strictSame(
    (await stored(owner.app.id)).map((row) => row.status),
    ['active', 'active'],
  );
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 2, real: 2 });
});

t.test('imports running at once keep the count exact', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await setPlan(owner, 'pro');
  const lists = [0, 1, 2].map(() => Array.from({ length: 200 }, () => browserShape()));
  // Each list also carries 50 endpoints of the next one: the imports touch the same rows.
  const overlapping = lists.map((list, i) => [...list, ...(lists[(i + 1) % 3] ?? []).slice(0, 50)]);
  const answers = (await Promise.all(overlapping.map((list) => importInto(owner, list)))).map(
    (response) => response.json() as ImportAnswer,
  );
  t.equal(
    answers.reduce((sum, answer) => sum + answer.imported, 0),
    600,
    'each endpoint imported once',
  );
  t.equal(
    answers.reduce((sum, answer) => sum + answer.updated, 0),
    150,
  );
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 600, real: 600 });
  // Subscribes and an import together, under the limit.
  const key = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/keys`,
    headers: bearer(owner.user.token),
    payload: { scope: 'subscribe_only' },
  });
  const secret = (key.json() as { secret: string }).secret;
  const [imported, ...subscribed] = await Promise.all([
    importInto(
      owner,
      Array.from({ length: 300 }, () => browserShape()),
    ),
    ...Array.from({ length: 20 }, () =>
      app.inject({ method: 'POST', url: '/api/v1/subscribe', headers: bearer(secret), payload: fakeSubscription() }),
    ),
  ]);
  // A subscribe may be answered 429 or 503 under this burst; the count must match what was stored.
  const stored = 600 + (imported.json() as ImportAnswer).imported + subscribed.filter((r) => r.statusCode < 300).length;
  t.ok(stored > 600, 'the import and the subscribes stored subscriptions');
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: stored, real: stored });
});

t.test('the request: limits, auth and tenancy', async (t) => {
  const owner = await ownerWithKey(app, 'full');
  const stranger = await ownerWithKey(app);
  assertError(t, await importInto(owner, []), 'INVALID_INPUT');
  assertError(t, await importInto(owner, 'not a list'), 'INVALID_INPUT');
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: `/api/v1/apps/${owner.app.id}/subscribers/import`,
      headers: bearer(owner.user.token),
      payload: {},
    }),
    'MISSING_FIELDS',
  );
  assertError(
    t,
    await importInto(
      owner,
      Array.from({ length: 10_001 }, () => ({})),
    ),
    'INVALID_INPUT',
  );
  assertError(t, await importInto(owner, [browserShape()], stranger.app.id), 'NOT_FOUND');
  assertError(t, await importInto(owner, [browserShape()], 'not-a-uuid'), 'NOT_FOUND');
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: `/api/v1/apps/${owner.app.id}/subscribers/import`,
      headers: bearer(owner.secret),
      payload: { subscribers: [browserShape()] },
    }),
    'INVALID_SESSION',
  );
  // A NUL is refused at the door for the whole request, as on every route (docs/security.md).
  assertError(t, await importInto(owner, [browserShape({ uid: 'a\u0000b' })]), 'INVALID_INPUT');

  // Bodies up to 4 MiB here (the API's default limit is 64 KiB), over → 413.
  const padded = (bytes: number) => {
    const entry = browserShape({
      uid: 'u'.repeat(100),
      tags: { a: 'x'.repeat(128), b: 'y'.repeat(128), c: 'z'.repeat(128) },
    });
    const one = JSON.stringify(entry).length + 1;
    return Array.from({ length: Math.floor(bytes / one) }, () => ({ ...entry, endpoint: fakeSubscription().endpoint }));
  };
  await setPlan(owner, 'pro');
  const big = await importInto(owner, padded(3.5 * 1024 * 1024));
  t.equal(big.statusCode, 200, 'a 3.5 MiB body is taken');
  t.equal((big.json() as ImportAnswer).rejected.length, 0);
  const tooBig = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/subscribers/import`,
    headers: { ...bearer(owner.user.token), 'content-type': 'application/json' },
    payload: JSON.stringify({ subscribers: [browserShape({ uid: 'x'.repeat(4 * 1024 * 1024) })] }),
  });
  assertError(t, tooBig, 'PAYLOAD_TOO_LARGE');
  t.equal((await stored(stranger.app.id)).length, 0, "the stranger's app is untouched");
});

t.test('10,000 entries in one request', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  await setPlan(owner, 'pro');
  const entries = Array.from({ length: 10_000 }, (_, i) => browserShape(i % 3 === 0 ? { tags: { n: String(i) } } : {}));
  const started = performance.now();
  const response = await importInto(owner, entries);
  const ms = performance.now() - started;
  t.strictSame(response.json(), { imported: 10_000, updated: 0, rejected: [] });
  t.strictSame(await subscriberCounted(sql, owner.user.user.id), { counter: 10_000, real: 10_000 });
  t.comment(`10,000 entries imported in ${Math.round(ms)} ms (inject, this machine, loaded)`);
});
