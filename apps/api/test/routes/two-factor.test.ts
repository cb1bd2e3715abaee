import { errorDetails } from '@webpush/errors';
import { keyedHash } from '@webpush/secrets';
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import t, { type Test } from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, registerUser } from '../helper.js';

// Two-factor sign-in (RFC 6238): setup, enable with a code (recovery codes shown once), sign-in
// with a code or a recovery code, each spent once, failures counted per account, and disable.
const ctx = await buildTestApp(t, {
  RATE_LIMIT_LOGIN_MAX: '1000',
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_LOGIN_ACCOUNT_MAX: '4',
  RATE_LIMIT_LOGIN_ACCOUNT_WINDOW_SECONDS: '600',
});
const { app } = ctx;
const sql = ctx.database.sql;

/** The code of the step `offsetSteps` away from now (the server accepts one step either side). */
const codeOf = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });

/** A code that is none of the three the server would accept now. */
const wrongCodeOf = (secret: string) => {
  const valid = new Set([codeOf(secret, -1), codeOf(secret), codeOf(secret, 1)]);
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
};

const post = (url: string, token: string, payload?: object) =>
  app.inject({ method: 'POST', url: `/api/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });

const login = (email: string, password: string, extra: object = {}) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password, ...extra } });

async function setUp(token: string): Promise<string> {
  const response = await post('/auth/totp/setup', token);
  if (response.statusCode !== 200) throw new Error(`setup: ${response.statusCode} ${response.body}`);
  return (response.json() as { secret: string }).secret;
}

/** A user with two-factor sign-in on: its secret and recovery codes. */
async function userWithTotp() {
  const user = await registerUser(app);
  const secret = await setUp(user.token);
  const enabled = await post('/auth/totp/enable', user.token, { code: codeOf(secret) });
  if (enabled.statusCode !== 200) throw new Error(`enable: ${enabled.statusCode} ${enabled.body}`);
  return { ...user, secret, recoveryCodes: (enabled.json() as { recoveryCodes: string[] }).recoveryCodes };
}

const totpEnabled = async (token: string) =>
  (
    (await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) })).json() as {
      user: { totpEnabled: boolean };
    }
  ).user.totpEnabled;

const signedIn = (t: Test, response: LightMyRequestResponse, what: string) => {
  t.equal(response.statusCode, 200, what);
  t.match((response.json() as { token: string }).token, /^wps_/, `${what}: a session`);
};

t.test('setup answers a base32 secret and its otpauth URL; the secret is stored sealed', async (t) => {
  const user = await registerUser(app);
  t.equal(await totpEnabled(user.token), false, 'off by default');
  const response = await post('/auth/totp/setup', user.token);
  t.equal(response.statusCode, 200);
  const body = response.json() as { secret: string; otpauthUrl: string };
  t.strictSame(Object.keys(body).sort(), ['otpauthUrl', 'secret']);
  t.match(body.secret, /^[A-Z2-7]{32}$/, '160 bits in base32');
  const url = new URL(body.otpauthUrl);
  t.equal(url.protocol, 'otpauth:');
  t.equal(url.host, 'totp');
  t.equal(url.searchParams.get('secret'), body.secret);
  t.equal(url.searchParams.get('algorithm'), 'SHA1');
  t.equal(url.searchParams.get('digits'), '6');
  t.equal(url.searchParams.get('period'), '30');
  t.match(decodeURIComponent(url.pathname), user.email, 'names the account');

  const [row] = await sql`select totp_secret_sealed, totp_enabled_at from users where id = ${user.user.id}`;
  t.ok(row?.totp_secret_sealed, 'stored');
  t.notOk(String(row?.totp_secret_sealed).includes(body.secret), 'sealed, not the secret itself');
  t.equal(row?.totp_enabled_at, null, 'not on before a code confirms it');
  t.equal(await totpEnabled(user.token), false);
  signedIn(t, await login(user.email, user.password), 'sign-in still needs no code');
});

t.test('enable: a wrong code is 400 INVALID_TOKEN; the right one answers ten recovery codes', async (t) => {
  const user = await registerUser(app);
  assertError(t, await post('/auth/totp/enable', user.token, { code: '123456' }), 'INVALID_TOKEN');
  const secret = await setUp(user.token);
  for (const code of [wrongCodeOf(secret), 'abcdef', '1234567'])
    assertError(t, await post('/auth/totp/enable', user.token, { code }), 'INVALID_TOKEN');
  assertError(t, await post('/auth/totp/enable', user.token, {}), 'MISSING_FIELDS');
  t.equal(await totpEnabled(user.token), false, 'nothing changed');

  const response = await post('/auth/totp/enable', user.token, { code: codeOf(secret) });
  t.equal(response.statusCode, 200);
  const { recoveryCodes } = response.json() as { recoveryCodes: string[] };
  t.equal(recoveryCodes.length, 10);
  t.equal(new Set(recoveryCodes).size, 10, 'all different');
  for (const code of recoveryCodes) t.match(code, /^[a-z2-7]{5}-[a-z2-7]{5}$/);
  t.equal(await totpEnabled(user.token), true, 'the user object says so');

  const stored = await sql<
    { code_hash: string }[]
  >`select code_hash from totp_recovery_codes where user_id = ${user.user.id}`;
  t.equal(stored.length, 10);
  const pepper = ctx.config.apiKeyPepper;
  if (!pepper) throw new Error('no pepper');
  const hashes = new Set(stored.map((row) => row.code_hash));
  for (const code of recoveryCodes) {
    t.ok(hashes.has(keyedHash(pepper, `totp-recovery:${code.replace('-', '')}`)), 'a keyed hash of each');
    t.notOk(JSON.stringify(stored).includes(code), 'never the code');
  }

  assertError(t, await post('/auth/totp/enable', user.token, { code: codeOf(secret) }), 'INVALID_INPUT', {
    message: errorDetails.TOTP_ALREADY_ENABLED.message,
  });
  assertError(t, await post('/auth/totp/setup', user.token), 'INVALID_INPUT', {
    message: errorDetails.TOTP_ALREADY_ENABLED.message,
  });
});

t.test('sign-in with TOTP on: TOTP_REQUIRED, a wrong code, each code and recovery code once', async (t) => {
  const user = await userWithTotp();
  assertError(t, await login(user.email, user.password), 'TOTP_REQUIRED');
  assertError(t, await login(user.email, 'wrong password', { totp: codeOf(user.secret) }), 'INVALID_CREDENTIALS');
  assertError(t, await login(user.email, user.password, { totp: wrongCodeOf(user.secret) }), 'INVALID_CREDENTIALS');

  const first = codeOf(user.secret, -1);
  signedIn(t, await login(user.email, user.password, { totp: first }), 'the code of the step before');
  assertError(t, await login(user.email, user.password, { totp: first }), 'INVALID_CREDENTIALS');
  signedIn(t, await login(user.email, user.password, { totp: codeOf(user.secret) }), 'the next step’s code');

  const [recovery] = user.recoveryCodes;
  if (!recovery) throw new Error('no recovery code');
  signedIn(t, await login(user.email, user.password, { recoveryCode: recovery.toUpperCase() }), 'a recovery code');
  assertError(t, await login(user.email, user.password, { recoveryCode: recovery }), 'INVALID_CREDENTIALS');
});

t.test('failed codes count toward the account’s sign-in limit', async (t) => {
  const user = await userWithTotp();
  for (let attempt = 0; attempt < 2; attempt++)
    assertError(t, await login(user.email, user.password, { totp: wrongCodeOf(user.secret) }), 'INVALID_CREDENTIALS');
  for (let attempt = 0; attempt < 2; attempt++)
    assertError(t, await login(user.email, user.password, { recoveryCode: 'aaaaa-bbbbb' }), 'INVALID_CREDENTIALS');
  assertError(t, await login(user.email, user.password, { totp: codeOf(user.secret) }), 'RATE_LIMITED');
});

t.test('disable needs a current code; sign-in then needs none; both changes are audited', async (t) => {
  const user = await userWithTotp();
  const disable = (code?: string) =>
    app.inject({
      method: 'DELETE',
      url: '/api/v1/auth/totp',
      headers: bearer(user.token),
      payload: code === undefined ? {} : { code },
    });
  assertError(t, await disable(), 'MISSING_FIELDS');
  assertError(t, await disable(wrongCodeOf(user.secret)), 'INVALID_TOKEN');
  t.equal(await totpEnabled(user.token), true, 'still on');

  const response = await disable(codeOf(user.secret));
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  t.equal(await totpEnabled(user.token), false);
  const [row] = await sql`select totp_secret_sealed, totp_enabled_at from users where id = ${user.user.id}`;
  t.strictSame([row?.totp_secret_sealed, row?.totp_enabled_at], [null, null], 'the secret is gone');
  const [codes] = await sql`select count(*)::int as n from totp_recovery_codes where user_id = ${user.user.id}`;
  t.equal(codes?.n, 0, 'and the recovery codes');
  signedIn(t, await login(user.email, user.password), 'no code needed');
  assertError(t, await disable(codeOf(user.secret)), 'INVALID_INPUT', {
    message: errorDetails.TOTP_NOT_ENABLED.message,
  });

  const log = await app.inject({ method: 'GET', url: '/api/v1/auth/audit-log', headers: bearer(user.token) });
  const actions = (log.json() as { entries: { action: string }[] }).entries.map((entry) => entry.action);
  t.ok(actions.indexOf('totp.disabled') >= 0 && actions.indexOf('totp.disabled') < actions.indexOf('totp.enabled'));
});

t.test('a recovery code turns it off too, and only a session may change it', async (t) => {
  const user = await userWithTotp();
  const tokenResponse = await post('/auth/tokens', user.token, { name: 'CI' });
  const { secret: accessToken } = tokenResponse.json() as { secret: string };
  assertError(t, await post('/auth/totp/setup', accessToken), 'INVALID_SESSION');
  const response = await app.inject({
    method: 'DELETE',
    url: '/api/v1/auth/totp',
    headers: bearer(user.token),
    payload: { code: user.recoveryCodes[3] },
  });
  t.equal(response.statusCode, 204);
});
