import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, registerUser } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

const patch = (token: string, appId: string, payload: unknown) =>
  app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${encodeURIComponent(appId)}`,
    headers: bearer(token),
    payload: payload as object,
  });

interface PublicApp {
  id: string;
  name: string;
  vapidPublicKey: string;
  createdAt: string;
  allowedOrigins: string[];
}

const stored = async (appId: string) =>
  (
    await sql<{ name: string; allowed_origins: string[] }[]>`select name, allowed_origins from apps where id = ${appId}`
  )[0];

t.test('PATCH /apps/{appId} renames and sets allowedOrigins; the app everywhere shows them', async (t) => {
  const user = await registerUser(app);
  const created = await createApp(app, user.token, 'Before');
  const response = await patch(user.token, created.id, {
    name: '  After  ',
    allowedOrigins: ['https://www.example.com', 'https://shop.example.com:8443', 'http://localhost:5173'],
  });
  t.equal(response.statusCode, 200);
  const expected: PublicApp = {
    ...created,
    name: 'After',
    allowedOrigins: ['https://www.example.com', 'https://shop.example.com:8443', 'http://localhost:5173'],
  };
  t.strictSame(response.json(), { app: expected });
  t.strictSame(await stored(created.id), { name: 'After', allowed_origins: expected.allowedOrigins });

  const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  t.strictSame(list.json(), { apps: [{ ...expected, stats: { activeSubscribers: 0, sendsThisMonth: 0 } }] });
  const one = await app.inject({ method: 'GET', url: `/api/v1/apps/${created.id}`, headers: bearer(user.token) });
  t.match(one.json(), { app: expected });
});

t.test('each field is optional; [] lifts the restriction; {} changes nothing', async (t) => {
  const user = await registerUser(app);
  const created = await createApp(app, user.token, 'Kept');
  const onlyOrigins = await patch(user.token, created.id, { allowedOrigins: ['https://a.example'] });
  t.strictSame(onlyOrigins.json(), { app: { ...created, allowedOrigins: ['https://a.example'] } });
  const onlyName = await patch(user.token, created.id, { name: 'Renamed' });
  t.strictSame(onlyName.json(), { app: { ...created, name: 'Renamed', allowedOrigins: ['https://a.example'] } });
  const nothing = await patch(user.token, created.id, {});
  t.strictSame(nothing.json(), onlyName.json());
  const cleared = await patch(user.token, created.id, { allowedOrigins: [] });
  t.strictSame(cleared.json(), { app: { ...created, name: 'Renamed', allowedOrigins: [] } });
  t.strictSame(await stored(created.id), { name: 'Renamed', allowed_origins: [] });
});

t.test('origins are normalised: case, default port, IDN, duplicates', async (t) => {
  const user = await registerUser(app);
  const created = await createApp(app, user.token);
  const response = await patch(user.token, created.id, {
    allowedOrigins: [
      'HTTPS://WWW.Example.COM',
      'https://www.example.com:443',
      'https://www.example.com',
      'https://bücher.example',
      'HTTP://LOCALHOST',
      'https://[::1]:8443',
    ],
  });
  t.equal(response.statusCode, 200);
  t.strictSame((response.json() as { app: PublicApp }).app.allowedOrigins, [
    'https://www.example.com',
    'https://xn--bcher-kva.example',
    'http://localhost',
    'https://[::1]:8443',
  ]);
});

t.test('anything but https://host[:port] or http://localhost[:port] is 400 INVALID_INPUT', async (t) => {
  const user = await registerUser(app);
  const created = await createApp(app, user.token);
  await patch(user.token, created.id, { allowedOrigins: ['https://kept.example'] });
  const refused = [
    'https://www.example.com/',
    'https://www.example.com/path',
    'https://www.example.com?q=1',
    'https://www.example.com#top',
    'https://user:pass@www.example.com',
    'http://www.example.com',
    'http://127.0.0.1:3000',
    'ftp://www.example.com',
    'www.example.com',
    'https://',
    'https://*.example.com',
    'https://www.example.com:99999',
    'https://exa mple.com',
    ' https://www.example.com',
    '',
    'null',
  ];
  for (const origin of refused) {
    assertError(t, await patch(user.token, created.id, { allowedOrigins: [origin] }), 'INVALID_INPUT');
  }
  const many = Array.from({ length: 21 }, (_, i) => `https://site${i}.example`);
  assertError(t, await patch(user.token, created.id, { allowedOrigins: many }), 'INVALID_INPUT');
  const twenty = await patch(user.token, created.id, { allowedOrigins: many.slice(0, 20) });
  t.equal(twenty.statusCode, 200, '20 is the most');
  await patch(user.token, created.id, { allowedOrigins: ['https://kept.example'] });

  assertError(t, await patch(user.token, created.id, { allowedOrigins: 'https://a.example' }), 'INVALID_INPUT');
  assertError(t, await patch(user.token, created.id, { allowedOrigins: [42] }), 'INVALID_INPUT');
  assertError(t, await patch(user.token, created.id, { allowedOrigins: null }), 'INVALID_INPUT');
  assertError(t, await patch(user.token, created.id, { name: '' }), 'MISSING_FIELDS');
  assertError(t, await patch(user.token, created.id, { name: 7 }), 'INVALID_INPUT');
  assertError(t, await patch(user.token, created.id, { name: 'x'.repeat(201) }), 'INVALID_INPUT');
  assertError(t, await patch(user.token, created.id, [1]), 'INVALID_INPUT');
  t.strictSame((await stored(created.id))?.allowed_origins, ['https://kept.example'], 'nothing was changed');
});

t.test("another user's app, an unknown id or no session: 404 / 401, nothing changed", async (t) => {
  const owner = await registerUser(app);
  const created = await createApp(app, owner.token, 'Mine');
  const intruder = await registerUser(app);
  assertError(t, await patch(intruder.token, created.id, { name: 'Taken', allowedOrigins: [] }), 'NOT_FOUND');
  assertError(t, await patch(owner.token, '00000000-0000-0000-0000-000000000000', { name: 'x' }), 'NOT_FOUND');
  assertError(t, await patch(owner.token, 'not-a-uuid', { name: 'x' }), 'NOT_FOUND');
  const anonymous = await app.inject({ method: 'PATCH', url: `/api/v1/apps/${created.id}`, payload: { name: 'x' } });
  assertError(t, anonymous, 'UNAUTHORIZED');
  t.strictSame(await stored(created.id), { name: 'Mine', allowed_origins: [] });
});

t.test('PATCH /apps/{appId} stores timeZone and frequencyCap; the app object shows them', async (t) => {
  const user = await registerUser(app);
  const created = await createApp(app, user.token, 'Zones');
  const fresh = await app.inject({ method: 'GET', url: `/api/v1/apps/${created.id}`, headers: bearer(user.token) });
  t.match(fresh.json(), { app: { timeZone: 'UTC', frequencyCap: null } }, 'new apps: UTC, no cap');

  const set = await patch(user.token, created.id, { timeZone: 'Etc/UTC', frequencyCap: { max: 2, hours: 24 } });
  t.equal(set.statusCode, 200, set.body);
  t.match(set.json(), { app: { timeZone: 'UTC', frequencyCap: { max: 2, hours: 24 } } });
  const tokyo = await patch(user.token, created.id, { timeZone: 'Asia/Tokyo' });
  t.match(tokyo.json(), { app: { timeZone: 'Asia/Tokyo', frequencyCap: { max: 2, hours: 24 } } });
  const list = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  t.match(list.json(), { apps: [{ timeZone: 'Asia/Tokyo', frequencyCap: { max: 2, hours: 24 } }] });
  const cleared = await patch(user.token, created.id, { frequencyCap: null });
  t.match(cleared.json(), { app: { timeZone: 'Asia/Tokyo', frequencyCap: null } });

  for (const body of [
    { timeZone: 'Mars/Base' },
    { timeZone: '+09:00' },
    { timeZone: null },
    { frequencyCap: { max: 0, hours: 24 } },
    { frequencyCap: { max: 101, hours: 24 } },
    { frequencyCap: { max: 2, hours: 721 } },
    { frequencyCap: { max: 2 } },
    { frequencyCap: { max: 2, hours: 24, extra: 1 } },
    { frequencyCap: 3 },
  ]) {
    const refused = await patch(user.token, created.id, body);
    t.equal(refused.statusCode, 400, JSON.stringify(body));
  }
  assertError(t, await patch(user.token, created.id, { timeZone: 'Mars/Base' }), 'INVALID_INPUT');
  const [row] = await sql`select time_zone, frequency_cap from apps where id = ${created.id}`;
  t.same(row, { time_zone: 'Asia/Tokyo', frequency_cap: null }, 'refused changes changed nothing');
});
