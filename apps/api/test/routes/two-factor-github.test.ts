import { errorDetails } from '@webpush/errors';
import { startFakeGithub } from '@webpush/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp } from '../helper.js';

// A GitHub sign-in to an account with two-factor sign-in on makes no session until the code is
// given: the callback sets a single-use cookie and sends the browser to /login?twoFactor=github.
const PUBLIC_URL = 'http://localhost:3000';
const CALLBACK_URL = `${PUBLIC_URL}/api/v1/auth/github/callback`;
const STATE_COOKIE = 'wp_oauth_state';
const SESSION_COOKIE = 'wp_session';
const WAITING_COOKIE = 'wp_totp_sign_in';

const github = await startFakeGithub();
t.teardown(() => github.close());
const { app, database } = await buildTestApp(t, {
  ...github.env,
  RATE_LIMIT_LOGIN_MAX: '1000',
  RATE_LIMIT_LOGIN_ACCOUNT_MAX: '3',
});
const sql = database.sql;

const cookie = (response: LightMyRequestResponse, name: string) =>
  response.cookies.find((entry) => entry.name === name);

async function signIn(server: FastifyInstance, githubId: number) {
  const start = await server.inject({ method: 'GET', url: '/api/v1/auth/github' });
  const state = new URL(String(start.headers.location)).searchParams.get('state') ?? '';
  const code = github.issueCode(githubId, { redirectUri: CALLBACK_URL });
  return server.inject({
    method: 'GET',
    url: '/api/v1/auth/github/callback',
    query: { code, state },
    cookies: { [STATE_COOKIE]: state },
  });
}

const complete = (waiting: string | undefined, payload: object, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/auth/github/totp',
    payload,
    headers,
    ...(waiting === undefined ? {} : { cookies: { [WAITING_COOKIE]: waiting } }),
  });

let githubId = 77_000;
/** An account made by GitHub sign-in, with two-factor sign-in turned on through its session. */
async function githubAccountWithTotp() {
  const id = ++githubId;
  const email = `octo-${id}@example.com`;
  github.addUser({
    id,
    login: `octo-${id}`,
    emails: [{ email, primary: true, verified: true, visibility: 'private' }],
  });
  const first = await signIn(app, id);
  const session = cookie(first, SESSION_COOKIE)?.value;
  if (!session) throw new Error(`first sign-in: ${first.statusCode} ${first.body}`);
  const setup = await app.inject({ method: 'POST', url: '/api/v1/auth/totp/setup', headers: bearer(session) });
  const totp = new TOTP({ secret: Secret.fromBase32((setup.json() as { secret: string }).secret) });
  const enabled = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/totp/enable',
    headers: bearer(session),
    payload: { code: totp.generate() },
  });
  if (enabled.statusCode !== 200) throw new Error(`enable: ${enabled.statusCode} ${enabled.body}`);
  return { id, email, totp, recoveryCodes: (enabled.json() as { recoveryCodes: string[] }).recoveryCodes };
}

const wrongCode = (totp: TOTP) => {
  const valid = new Set([-30_000, 0, 30_000].map((offset) => totp.generate({ timestamp: Date.now() + offset })));
  return ['000000', '111111', '222222', '333333'].find((code) => !valid.has(code)) ?? '444444';
};

t.test('the callback makes no session; the code completes the sign-in once', async (t) => {
  const account = await githubAccountWithTotp();
  const callback = await signIn(app, account.id);
  t.equal(callback.statusCode, 302);
  t.equal(callback.headers.location, `${PUBLIC_URL}/login?twoFactor=github`);
  t.notOk(cookie(callback, SESSION_COOKIE)?.value, 'no session yet');
  const waiting = cookie(callback, WAITING_COOKIE);
  t.ok(waiting?.value, 'a waiting sign-in');
  t.equal(waiting?.httpOnly, true);
  t.equal(waiting?.sameSite, 'Lax');
  t.equal(waiting?.path, '/api/v1/auth/github');
  const [stored] =
    await sql`select token_hash, purpose from account_tokens where purpose = 'totp_sign_in' order by created_at desc limit 1`;
  t.not(stored?.token_hash, waiting?.value, 'stored as a keyed hash');

  assertError(t, await complete(waiting?.value, {}), 'TOTP_REQUIRED');
  assertError(t, await complete(waiting?.value, { totp: wrongCode(account.totp) }), 'INVALID_CREDENTIALS');
  assertError(t, await complete(undefined, { totp: account.totp.generate() }), 'INVALID_TOKEN');
  assertError(t, await complete('wpg_forged', { totp: account.totp.generate() }), 'INVALID_TOKEN');
  assertError(
    t,
    await complete(waiting?.value, { totp: account.totp.generate() }, { origin: 'https://evil.example.com' }),
    'ORIGIN_NOT_ALLOWED',
    { message: errorDetails.NOT_THE_DASHBOARD_ORIGIN.message },
  );

  const done = await complete(waiting?.value, { totp: account.totp.generate() });
  t.equal(done.statusCode, 200);
  const body = done.json() as { user: { email: string; totpEnabled: boolean }; token: string };
  t.equal(body.user.email, account.email);
  t.equal(body.user.totpEnabled, true);
  t.equal(cookie(done, SESSION_COOKIE)?.value, body.token, 'the session cookie is set');
  t.equal(cookie(done, WAITING_COOKIE)?.value, '', 'the waiting cookie is cleared');
  const me = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(body.token) });
  t.equal(me.statusCode, 200);

  // The same code again, through a new sign-in: a code signs in once.
  const second = await signIn(app, account.id);
  assertError(
    t,
    await complete(cookie(second, WAITING_COOKIE)?.value, { totp: account.totp.generate() }),
    'INVALID_CREDENTIALS',
  );
  assertError(t, await complete(waiting?.value, { recoveryCode: account.recoveryCodes[0] ?? '' }), 'INVALID_TOKEN');
  const byRecovery = await complete(cookie(second, WAITING_COOKIE)?.value, {
    recoveryCode: account.recoveryCodes[0] ?? '',
  });
  t.equal(byRecovery.statusCode, 200, 'a recovery code completes it too');
});

t.test('failed codes count toward the account’s sign-in limit', async (t) => {
  const account = await githubAccountWithTotp();
  const waiting = cookie(await signIn(app, account.id), WAITING_COOKIE)?.value;
  for (let attempt = 0; attempt < 3; attempt++)
    assertError(t, await complete(waiting, { totp: wrongCode(account.totp) }), 'INVALID_CREDENTIALS');
  assertError(t, await complete(waiting, { totp: account.totp.generate() }), 'RATE_LIMITED');
});
