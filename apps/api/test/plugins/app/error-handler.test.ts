import { connect } from 'node:net';
import t from 'tap';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, registerUser } from '../../helper.js';

// Every failure, from routes, the framework and unexpected exceptions, has the contract's body.
const noRateLimits = { RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '1000', RATE_LIMIT_API_KEY_MAX: '1000' };
const ctx = await buildTestApp(t, noRateLimits);
const { app } = ctx;

// Routes that fail the way bugs do; added before the first request makes the app ready.
const SECRET_DETAIL = 'connection to db-internal.example:5432 failed for user admin';
app.get('/test/throws', async () => {
  throw new Error(SECRET_DETAIL);
});
app.get('/test/rejects-with-string', async () => Promise.reject(SECRET_DETAIL));
app.get('/test/throws-type-error', async () => {
  const missing = null as unknown as { property: string };
  return missing.property;
});

const user = await registerUser(app);

const post = (url: string, payload: string, contentType = 'application/json') =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': contentType } });

t.test('malformed JSON is 400 INVALID_INPUT', async (t) => {
  for (const payload of ['{"email":', '{email: "a@example.com"}', "{'a':1}", '{"a":1}}', 'undefined']) {
    assertError(t, await post('/api/v1/auth/login', payload), 'INVALID_INPUT');
  }
});

t.test('a body that is not an object is 400 INVALID_INPUT', async (t) => {
  for (const payload of [
    '[]',
    '[{"email":"a@example.com","password":"long enough"}]',
    '"a string"',
    '42',
    'true',
    'null',
  ]) {
    assertError(t, await post('/api/v1/auth/register', payload), 'INVALID_INPUT');
    assertError(t, await post('/api/v1/subscribe', payload), 'UNAUTHORIZED');
  }
  const withKey = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      payload,
      headers: { 'content-type': 'application/json', ...bearer(user.token) },
    });
  for (const payload of ['[]', '"name"', 'null']) assertError(t, await withKey(payload), 'INVALID_INPUT');
});

t.test('a wrong JSON type is 400 INVALID_INPUT; a missing field still comes first', async (t) => {
  assertError(t, await post('/api/v1/auth/login', '{"email":123,"password":"long enough"}'), 'INVALID_INPUT');
  assertError(t, await post('/api/v1/auth/login', '{"email":"a@example.com","password":null}'), 'INVALID_INPUT');
  assertError(t, await post('/api/v1/auth/login', '{"email":123}'), 'MISSING_FIELDS');
});

t.test('a content type other than JSON is 415 INVALID_INPUT', async (t) => {
  const body = '{"email":"a@example.com","password":"long enough"}';
  for (const contentType of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
  ]) {
    assertError(t, await post('/api/v1/auth/login', body, contentType), 'INVALID_INPUT', { status: 415 });
  }
});

t.test('a body over the server limit is 413 PAYLOAD_TOO_LARGE', async (t) => {
  const huge = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(70_000) });
  assertError(t, await post('/api/v1/auth/login', huge), 'PAYLOAD_TOO_LARGE');

  const small = await buildTestApp(t, { ...noRateLimits, BODY_LIMIT_BYTES: '2048' });
  const login = (password: string) =>
    small.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: JSON.stringify({ email: 'a@example.com', password }),
      headers: { 'content-type': 'application/json' },
    });
  assertError(t, await login('x'.repeat(2100)), 'PAYLOAD_TOO_LARGE');
  assertError(t, await login('x'.repeat(1900)), 'INVALID_CREDENTIALS');
});

t.test('an empty body sent as application/json is no body', async (t) => {
  const session = await registerUser(app);
  const empty = (method: 'POST' | 'DELETE', url: string, token?: string) =>
    app.inject({
      method,
      url,
      payload: '',
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
    });
  // Routes without a body answer as they would without the header.
  assertError(
    t,
    await empty('DELETE', '/api/v1/apps/00000000-0000-0000-0000-000000000000', session.token),
    'NOT_FOUND',
  );
  t.equal((await empty('POST', '/api/v1/auth/logout', session.token)).statusCode, 204, 'logout');
  // Routes that need one: the required fields are missing.
  assertError(t, await empty('POST', '/api/v1/auth/login'), 'MISSING_FIELDS');
  assertError(t, await empty('POST', '/api/v1/apps', user.token), 'MISSING_FIELDS');
});

t.test('a path that does not percent-decode is 400 INVALID_INPUT with the contract body', async (t) => {
  for (const url of ['/api/v1/apps/%E0%A4%A', '/api/v1/nothing/%zz', '/%']) {
    assertError(t, await app.inject({ method: 'GET', url, headers: bearer(user.token) }), 'INVALID_INPUT');
  }
});

t.test("a request Node's HTTP parser refuses gets the contract body, not Fastify's", async (t) => {
  const listening = await buildTestApp(t, noRateLimits);
  await listening.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = listening.app.server.address() as { port: number };
  const exchange = (request: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
      });
      socket.on('close', () => resolve(received));
      socket.on('error', reject);
    });
  for (const [request, status] of [
    ['NOT A REQUEST\r\n\r\n', 400],
    [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ] as const) {
    const raw = await exchange(request);
    const [head = '', body = ''] = raw.split('\r\n\r\n');
    t.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), `status ${status}`);
    t.match(head, /content-type: application\/json; charset=utf-8/i);
    t.strictSame(JSON.parse(body), { error: '入力内容が正しくありません', code: 'INVALID_INPUT' });
  }
});

t.test('an unknown route or method is 404 NOT_FOUND with the contract body', async (t) => {
  for (const [method, url] of [
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/api/v2/apps'],
    ['GET', '/no-such-page'], // `/` is the dashboard now (docs/dashboard.md); unknown paths without Accept: text/html stay 404
    ['POST', '/api/v1/apps/x/y/z'],
    ['PATCH', '/api/v1/apps'],
    ['PUT', '/api/v1/subscribe'],
  ] as const) {
    assertError(t, await app.inject({ method, url }), 'NOT_FOUND');
  }
});

t.test('an unexpected exception is 500 INTERNAL_ERROR and shows nothing of its cause', async (t) => {
  for (const url of ['/test/throws', '/test/rejects-with-string', '/test/throws-type-error']) {
    const response = await app.inject({ method: 'GET', url });
    assertError(t, response, 'INTERNAL_ERROR');
    t.notOk(response.body.includes('db-internal'), 'no message of the cause');
    t.notOk(/at .*\.(ts|js):\d+/.test(response.body), 'no stack trace');
  }
});

t.test('a database failure in a route is 500 INTERNAL_ERROR', async (t) => {
  const sql = ctx.database.sql;
  await sql`alter table apps rename to apps_unavailable`;
  try {
    const response = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
    assertError(t, response, 'INTERNAL_ERROR');
    t.notOk(response.body.includes('apps'), 'neither the SQL nor the table name leaks');
  } finally {
    await sql`alter table apps_unavailable rename to apps`;
  }
  const recovered = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(user.token) });
  t.equal(recovered.statusCode, 200);
});
