import { errorDetails } from '@webpush/errors';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, registerUser } from '../helper.js';

// POST /auth/password and GET /auth/status (docs/accounts.md).
const { app } = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '8' });

const login = async (email: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } });
const me = (token: string) => app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });
const change = (token: string, body: Record<string, unknown>, ip = '203.0.113.1') =>
  app.inject({
    method: 'POST',
    url: '/api/v1/auth/password',
    headers: bearer(token),
    payload: body,
    remoteAddress: ip,
  });

t.test('a new password needs the current one, keeps this session and ends the others', async (t) => {
  const owner = await registerUser(app);
  const other = (await login(owner.email, owner.password)).json().token as string;
  const bystander = await registerUser(app);

  assertError(
    t,
    await change(owner.token, { currentPassword: 'not the password', newPassword: 'a new long passphrase' }),
    'INVALID_CREDENTIALS',
  );
  t.equal((await me(other)).statusCode, 200, 'a wrong current password changes nothing');
  assertError(
    t,
    await change(owner.token, { currentPassword: owner.password, newPassword: 'short' }),
    'INVALID_INPUT',
    {
      message: errorDetails.PASSWORD_TOO_SHORT.message,
    },
  );
  assertError(t, await change(owner.token, { currentPassword: owner.password }), 'MISSING_FIELDS');

  const changed = await change(owner.token, { currentPassword: owner.password, newPassword: 'a new long passphrase' });
  t.equal(changed.statusCode, 200);
  t.match(changed.json(), { user: { id: owner.user.id, email: owner.email }, endedSessions: 1 });
  t.equal((await me(owner.token)).statusCode, 200, 'this session stays');
  assertError(t, await me(other), 'INVALID_SESSION');
  t.equal((await me(bystander.token)).statusCode, 200, 'nobody else’s session ends');

  assertError(t, await login(owner.email, owner.password), 'INVALID_CREDENTIALS');
  t.equal((await login(owner.email, 'a new long passphrase')).statusCode, 200, 'the new password signs in');

  const log = await app.inject({
    method: 'GET',
    url: '/api/v1/auth/audit-log',
    headers: { authorization: `Bearer ${owner.token}` },
  });
  const actions = (log.json().entries as { action: string }[]).map((entry) => entry.action);
  t.equal(actions.filter((action) => action === 'password.changed').length, 1, 'one password.changed entry');
});

t.test('it needs a session, and is rate limited like sign-in', async (t) => {
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/auth/password',
      payload: { currentPassword: 'x', newPassword: 'y' },
    }),
    'UNAUTHORIZED',
  );
  const owner = await registerUser(app);
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 9; attempt++) {
    const answer = await change(
      owner.token,
      { currentPassword: 'guess', newPassword: 'a new long passphrase' },
      '203.0.113.9',
    );
    statuses.push(answer.statusCode);
  }
  t.ok(statuses.includes(429), `guessing is limited (${statuses.join(', ')})`);
});

t.test('GET /auth/status: the user, or null without an error', async (t) => {
  const owner = await registerUser(app);
  const signedIn = await app.inject({ method: 'GET', url: '/api/v1/auth/status', headers: bearer(owner.token) });
  t.equal(signedIn.statusCode, 200);
  t.match(signedIn.json(), { user: { id: owner.user.id, email: owner.email } });
  const byCookie = await app.inject({
    method: 'GET',
    url: '/api/v1/auth/status',
    cookies: { wp_session: owner.token },
  });
  t.match(byCookie.json(), { user: { id: owner.user.id } });

  for (const headers of [{}, bearer('wps_not-a-session'), { authorization: 'Basic x' }]) {
    const signedOut = await app.inject({ method: 'GET', url: '/api/v1/auth/status', headers });
    t.equal(signedOut.statusCode, 200);
    t.strictSame(signedOut.json(), { user: null });
  }
  assertError(t, await app.inject({ method: 'GET', url: '/api/v1/auth/me' }), 'UNAUTHORIZED');
});
