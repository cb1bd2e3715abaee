import { testCoordination } from '@webpush/testing';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, ownerWithKey, uniqueEmail } from '../../helper.js';

// Default limits (docs/configuration.md): 20 / 60 s for API-key routes, 10 / 60 s for login + GitHub start (one
// counter), 5 / 60 s for register, all per client IP. Each scenario uses its own client address so
// the counters do not mix; the GitHub route needs a client id and secret to be live.
const ctx = await buildTestApp(t, { GITHUB_CLIENT_ID: 'test-client-id', GITHUB_CLIENT_SECRET: 'test-client-secret' });
const { app } = ctx;

let nextAddress = 10;
const newAddress = () => `10.1.0.${nextAddress++}`;

async function times(count: number, request: InjectOptions): Promise<LightMyRequestResponse[]> {
  const responses: LightMyRequestResponse[] = [];
  for (let i = 0; i < count; i++) responses.push(await app.inject(request));
  return responses;
}

function assertRateLimited(t: Test, response: LightMyRequestResponse, retryAfter = '60') {
  assertError(t, response, 'RATE_LIMITED');
  t.equal(response.headers['retry-after'], retryAfter, `Retry-After: ${retryAfter}`);
}

const owner = await ownerWithKey(app, 'subscribe_only');

t.test('the 21st API-key request in a window from one IP is 429 RATE_LIMITED with Retry-After: 60', async (t) => {
  const remoteAddress = newAddress();
  const request = {
    method: 'GET',
    url: '/api/v1/vapid-public-key',
    headers: bearer(owner.secret),
    remoteAddress,
  } as const;
  const allowed = await times(20, request);
  t.strictSame(
    allowed.map((response) => response.statusCode),
    Array(20).fill(200),
    'the first 20 pass',
  );
  t.equal(allowed[19]?.headers['x-ratelimit-remaining'], '0');
  assertRateLimited(t, await app.inject(request));

  // Every API-key route shares the counter, and a bad key counts as well as a good one.
  const subscribe = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: {},
    remoteAddress,
  });
  assertRateLimited(t, subscribe);
  assertRateLimited(t, await app.inject({ ...request, headers: bearer('wpk_unknown') }));

  const elsewhere = await app.inject({ ...request, remoteAddress: newAddress() });
  t.equal(elsewhere.statusCode, 200, 'another IP has its own counter');
  const sessionRoute = await app.inject({
    method: 'GET',
    url: '/api/v1/auth/me',
    headers: bearer(owner.user.token),
    remoteAddress,
  });
  t.equal(sessionRoute.statusCode, 200, 'session routes are not API-key limited');
});

t.test('a forged X-Forwarded-For does not escape the limit (no proxy is trusted by default)', async (t) => {
  const remoteAddress = newAddress();
  const request = (n: number) =>
    app.inject({
      method: 'GET',
      url: '/api/v1/vapid-public-key',
      headers: { ...bearer(owner.secret), 'x-forwarded-for': `192.0.2.${n}` },
      remoteAddress,
    });
  for (let n = 1; n <= 20; n++) await request(n);
  assertRateLimited(t, await request(21));
});

t.test('unauthenticated requests to API-key routes count too', async (t) => {
  const remoteAddress = newAddress();
  const request = { method: 'GET', url: '/api/v1/vapid-public-key', remoteAddress } as const;
  const first = await times(20, request);
  t.ok(first.every((response) => response.statusCode === 401));
  assertRateLimited(t, await app.inject(request));
});

t.test('login allows 10 per window; the 11th is 429', async (t) => {
  const remoteAddress = newAddress();
  const request = {
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: owner.user.email, password: 'wrong password' },
    remoteAddress,
  } as const;
  // Failed and malformed attempts count alike (malformed ones skip the ~25 ms of argon2).
  const first = [await app.inject(request), ...(await times(9, { ...request, payload: {} }))];
  t.strictSame(
    first.map((response) => response.json<{ code?: string }>().code),
    ['INVALID_CREDENTIALS', ...Array(9).fill('MISSING_FIELDS')],
  );
  assertRateLimited(t, await app.inject(request));
  // Even the right password waits now: the limit is on the address, not on failures.
  const right = await app.inject({ ...request, payload: { email: owner.user.email, password: owner.user.password } });
  assertRateLimited(t, right);
  const elsewhere = await app.inject({ ...request, remoteAddress: newAddress() });
  t.equal(elsewhere.statusCode, 401, 'another IP is not limited');
});

t.test('GET /auth/github shares the login counter', async (t) => {
  const remoteAddress = newAddress();
  const login = { method: 'POST', url: '/api/v1/auth/login', payload: {}, remoteAddress } as const;
  const github = { method: 'GET', url: '/api/v1/auth/github', remoteAddress } as const;
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await app.inject(i % 2 === 0 ? login : github)).statusCode);
  t.strictSame(statuses, [400, 302, 400, 302, 400, 302, 400, 302, 400, 302], 'five of each pass');
  assertRateLimited(t, await app.inject(github));
  assertRateLimited(t, await app.inject(login));

  const onlyGithub = newAddress();
  const redirects = await times(10, { ...github, remoteAddress: onlyGithub });
  t.ok(
    redirects.every((response) => response.statusCode === 302),
    'ten GitHub starts pass',
  );
  assertRateLimited(t, await app.inject({ ...login, remoteAddress: onlyGithub }), '60');
});

t.test('register allows 5 per window; the 6th is 429', async (t) => {
  const remoteAddress = newAddress();
  const request = { method: 'POST', url: '/api/v1/auth/register', payload: { email: 'not-an-email' }, remoteAddress };
  const first = await times(5, request);
  t.ok(first.every((response) => response.statusCode === 400));
  const sixth = await app.inject({ ...request, payload: { email: uniqueEmail(), password: 'long enough' } });
  assertRateLimited(t, sixth);
  const [row] = await ctx.database.sql`select count(*)::int as n from users`;
  t.equal(row?.n, 1, 'the limited registration created nobody');
  const elsewhere = await app.inject({
    ...request,
    payload: { email: uniqueEmail(), password: 'long enough' },
    remoteAddress: newAddress(),
  });
  t.equal(elsewhere.statusCode, 201, 'another IP can register');
});

t.test(
  'the counters live in Redis under the configured key prefix',
  { skip: testCoordination() === 'process' && 'in-process coordination counts in the API process' },
  async (t) => {
    const remoteAddress = newAddress();
    await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: {}, remoteAddress });
    const redis = new Redis(ctx.resources.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    t.teardown(() => redis.disconnect());
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${ctx.resources.redisKeyPrefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    const loginKey = keys.find((key) => key.includes('login') && key.endsWith(remoteAddress));
    t.ok(loginKey, `a login counter for ${remoteAddress} under ${ctx.resources.redisKeyPrefix}`);
    if (loginKey) {
      t.equal(await redis.get(loginKey), '1');
      const ttl = await redis.pttl(loginKey);
      t.ok(ttl > 0 && ttl <= 60_000, 'it expires with the window');
    }
  },
);

t.test('RATE_LIMIT_* settings override the limits and the window', async (t) => {
  const tight = await buildTestApp(t, {
    RATE_LIMIT_API_KEY_MAX: '3',
    RATE_LIMIT_LOGIN_MAX: '2',
    RATE_LIMIT_REGISTER_MAX: '1',
    RATE_LIMIT_WINDOW_SECONDS: '30',
  });
  const remoteAddress = '10.2.0.1';
  const register = (email: string) =>
    tight.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email, password: 'long enough' },
      remoteAddress,
    });
  const registered = await register(uniqueEmail());
  t.equal(registered.statusCode, 201);
  assertRateLimited(t, await register(uniqueEmail()), '30');

  const login = { method: 'POST', url: '/api/v1/auth/login', payload: {}, remoteAddress } as const;
  t.equal((await tight.app.inject(login)).statusCode, 400);
  t.equal((await tight.app.inject(login)).statusCode, 400);
  assertRateLimited(t, await tight.app.inject(login), '30');

  const token = (registered.json() as { token: string }).token;
  const appResponse = await tight.app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(token),
    payload: { name: 'Tight' },
  });
  const appId = (appResponse.json() as { app: { id: string } }).app.id;
  const keyResponse = await tight.app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/keys`,
    headers: bearer(token),
    payload: { scope: 'full' },
  });
  const secret = (keyResponse.json() as { secret: string }).secret;
  const vapid = { method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(secret), remoteAddress } as const;
  for (let i = 0; i < 3; i++) t.equal((await tight.app.inject(vapid)).statusCode, 200);
  assertRateLimited(t, await tight.app.inject(vapid), '30');
});

t.test(
  'the e-mail routes: password-reset and resend share a counter of 5; token routes use the login one',
  async (t) => {
    const remoteAddress = newAddress();
    const user = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email: uniqueEmail('mail-limit'), password: 'correct horse battery' },
      remoteAddress: newAddress(),
    });
    const token = (user.json() as { token: string }).token;
    const reset = { method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: uniqueEmail() } } as const;
    const resend = { method: 'POST', url: '/api/v1/auth/verify-email/resend', headers: bearer(token) } as const;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ ...reset, remoteAddress })).statusCode);
    for (let i = 0; i < 2; i++) statuses.push((await app.inject({ ...resend, remoteAddress })).statusCode);
    t.strictSame(statuses, [202, 202, 202, 202, 202], 'five e-mail requests pass');
    assertRateLimited(t, await app.inject({ ...reset, remoteAddress }));
    assertRateLimited(t, await app.inject({ ...resend, remoteAddress }));
    t.equal((await app.inject({ ...reset, remoteAddress: newAddress() })).statusCode, 202, 'per IP');
    const registerHere = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email: uniqueEmail('own-counter'), password: 'correct horse battery' },
      remoteAddress,
    });
    t.equal(registerHere.statusCode, 201, 'registering keeps its own counter');

    const tokenAddress = newAddress();
    const verify = { method: 'POST', url: '/api/v1/auth/verify-email', payload: { token: 'wpv_x' } } as const;
    const confirm = {
      method: 'POST',
      url: '/api/v1/auth/password-reset/confirm',
      payload: { token: 'wpr_x', password: 'long enough' },
    } as const;
    for (let i = 0; i < 5; i++) t.equal((await app.inject({ ...verify, remoteAddress: tokenAddress })).statusCode, 400);
    for (let i = 0; i < 5; i++)
      t.equal((await app.inject({ ...confirm, remoteAddress: tokenAddress })).statusCode, 400);
    assertRateLimited(t, await app.inject({ ...verify, remoteAddress: tokenAddress }));
    assertRateLimited(
      t,
      await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: {}, remoteAddress: tokenAddress }),
    );
  },
);
