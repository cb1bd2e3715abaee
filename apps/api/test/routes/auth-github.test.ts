import { type ErrorCode, errorBody } from '@webpush/errors';
import { type FakeGithub, type FakeGithubEmail, startFakeGithub } from '@webpush/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import t, { type Test } from 'tap';
import { bearer, buildTestApp, registerUser, uniqueEmail } from '../helper.js';

const PUBLIC_URL = 'http://localhost:3000';
const CALLBACK_URL = `${PUBLIC_URL}/api/v1/auth/github/callback`;
const STATE_COOKIE = 'wp_oauth_state';
const SESSION_COOKIE = 'wp_session';

let nextGithubId = 41_000;

function addGithubUser(github: FakeGithub, emails: Array<Partial<FakeGithubEmail> & { email: string }>) {
  const id = ++nextGithubId;
  return github.addUser({
    id,
    login: `octo-${id}`,
    emails: emails.map((entry, index) => ({ primary: index === 0, verified: true, visibility: 'private', ...entry })),
  });
}

function cookie(response: LightMyRequestResponse, name: string) {
  return response.cookies.find((entry) => entry.name === name);
}

function expectError(t: Test, response: LightMyRequestResponse, status: number, code: ErrorCode) {
  t.equal(response.statusCode, status, `${code} status`);
  t.strictSame(response.json(), errorBody(code, PUBLIC_URL), `${code} body is exactly {error, code}`);
  t.notOk(cookie(response, SESSION_COOKIE)?.value, 'no session cookie');
}

/** GET /auth/github: the authorize URL and the state cookie the browser would keep. */
async function startSignIn(app: FastifyInstance) {
  const response = await app.inject({ method: 'GET', url: '/api/v1/auth/github' });
  if (response.statusCode !== 302) throw new Error(`start answered ${response.statusCode} ${response.body}`);
  const location = new URL(String(response.headers.location));
  const state = location.searchParams.get('state') ?? '';
  return { response, location, state };
}

const callback = (app: FastifyInstance, query: Record<string, string>, cookies: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/api/v1/auth/github/callback', query, cookies });

/** A whole sign-in with a code minted directly for `userId`: start, then the callback. */
async function signIn(app: FastifyInstance, github: FakeGithub, userId: number) {
  const { state } = await startSignIn(app);
  const code = github.issueCode(userId, { redirectUri: CALLBACK_URL });
  return callback(app, { code, state }, { [STATE_COOKIE]: state });
}

async function me(app: FastifyInstance, response: LightMyRequestResponse) {
  const session = cookie(response, SESSION_COOKIE)?.value;
  if (!session) throw new Error(`no session cookie: ${response.statusCode} ${response.body}`);
  const answer = await app.inject({ method: 'GET', url: '/api/v1/auth/me', cookies: { [SESSION_COOKIE]: session } });
  if (answer.statusCode !== 200) throw new Error(`/auth/me answered ${answer.statusCode} ${answer.body}`);
  return (answer.json() as { user: { id: string; email: string; plan: string } }).user;
}

t.test('GitHub sign-in against a local fake GitHub', async (t) => {
  const github = await startFakeGithub();
  t.teardown(() => github.close());
  // Every case starts a sign-in; the login limiter (10/60 s, shared with POST /auth/login) is not under test here.
  const { app, database } = await buildTestApp(t, { ...github.env, RATE_LIMIT_LOGIN_MAX: '1000' });

  const githubIdOf = async (email: string) => {
    const rows = await database.sql<{ github_id: string | null }[]>`select github_id from users where email = ${email}`;
    return rows.map((row) => (row.github_id === null ? null : Number(row.github_id)));
  };

  t.test(
    'start: 302 to the authorize URL with client_id, redirect_uri, scope and a state bound by cookie',
    async (t) => {
      const { response, location, state } = await startSignIn(app);
      t.equal(`${location.origin}${location.pathname}`, github.env.GITHUB_AUTHORIZE_URL);
      t.equal(location.searchParams.get('client_id'), github.clientId);
      t.equal(location.searchParams.get('redirect_uri'), CALLBACK_URL);
      t.equal(location.searchParams.get('response_type'), 'code');
      const scopes = (location.searchParams.get('scope') ?? '').split(/[ ,]+/);
      t.ok(scopes.includes('user:email'), 'asks for the e-mail addresses');
      t.ok(state.length >= 16, 'state is long enough to be unguessable');

      const stateCookie = cookie(response, STATE_COOKIE);
      t.equal(stateCookie?.value, state, 'the state cookie carries the state');
      t.equal(stateCookie?.httpOnly, true);
      t.equal(stateCookie?.sameSite, 'Lax');

      const again = await startSignIn(app);
      t.not(again.state, state, 'each start has a fresh state');
    },
  );

  t.test('the whole browser flow signs in and the session cookie authenticates /auth/me', async (t) => {
    const user = addGithubUser(github, [
      { email: 'Mona.Octo@Example.COM', visibility: 'public' },
      { email: 'mona-work@example.com', primary: false },
    ]);
    github.signInAs(user.id);
    const start = await startSignIn(app);
    const approved = await fetch(start.location, { redirect: 'manual' });
    t.equal(approved.status, 302, 'fake GitHub approves and sends the browser back');
    const back = new URL(approved.headers.get('location') ?? '');
    t.equal(`${back.origin}${back.pathname}`, CALLBACK_URL);

    const requestsBefore = github.requests.length;
    const response = await callback(app, Object.fromEntries(back.searchParams), { [STATE_COOKIE]: start.state });
    t.equal(response.statusCode, 302, response.body);
    t.equal(response.headers.location, `${PUBLIC_URL}/`);
    const session = cookie(response, SESSION_COOKIE);
    t.match(session?.value, /^wps_/);
    t.equal(session?.httpOnly, true);
    t.equal(session?.path, '/');
    t.equal(cookie(response, STATE_COOKIE)?.value, '', 'the state is single-use: its cookie is cleared');

    const signedIn = await me(app, response);
    t.equal(signedIn.email, 'mona.octo@example.com', 'the verified primary e-mail, normalised');
    t.equal(signedIn.plan, 'free');
    t.strictSame(await githubIdOf('mona.octo@example.com'), [user.id]);

    const seen = github.requests.slice(requestsBefore);
    const exchange = seen.find((request) => request.path === '/login/oauth/access_token');
    const form = new URLSearchParams(exchange?.body ?? '');
    t.equal(form.get('client_id'), github.clientId, 'client_id in the form body');
    t.equal(form.get('client_secret'), github.clientSecret, 'client_secret in the form body');
    t.equal(form.get('code'), back.searchParams.get('code'));
    t.equal(form.get('redirect_uri'), CALLBACK_URL);
    t.match(exchange?.headers.accept, /application\/json/);
    const apiCalls = seen.filter((request) => request.path.startsWith('/user'));
    t.strictSame(
      apiCalls.map((request) => request.path),
      ['/user', '/user/emails'],
    );
    for (const call of apiCalls) t.match(call.headers.authorization, /^Bearer gho_/);
  });

  t.test('a second sign-in of the same GitHub user is the same account, even after an e-mail change', async (t) => {
    const user = addGithubUser(github, [{ email: uniqueEmail('repeat') }]);
    const first = await me(app, await signIn(app, github, user.id));
    const second = await me(app, await signIn(app, github, user.id));
    t.equal(second.id, first.id);

    const changed = uniqueEmail('renamed');
    github.addUser({ ...user, emails: [{ email: changed, primary: true, verified: true, visibility: null }] });
    const third = await me(app, await signIn(app, github, user.id));
    t.equal(third.id, first.id, 'linked by GitHub id, not by e-mail');
  });

  t.test('a password account that has not verified its e-mail is never linked: 409 EMAIL_IN_USE', async (t) => {
    // The pre-hijack: someone registers the victim's address first, with a password of their own.
    const squatter = await registerUser(app, uniqueEmail('victim'));
    t.equal(squatter.user.emailVerified, false);
    const victim = addGithubUser(github, [{ email: squatter.email }]);
    const [{ count: usersBefore } = { count: 0 }] = await database.sql<{ count: number }[]>`
      select count(*)::int as count from users`;

    expectError(t, await signIn(app, github, victim.id), 409, 'EMAIL_IN_USE');
    t.strictSame(await githubIdOf(squatter.email), [null], 'the account stays unlinked');
    const [{ count: usersAfter } = { count: -1 }] = await database.sql<{ count: number }[]>`
      select count(*)::int as count from users`;
    t.equal(usersAfter, usersBefore, 'no second account with the same e-mail');
    const [{ sessions = -1 } = {}] = await database.sql<{ sessions: number }[]>`
      select count(*)::int as sessions from sessions where user_id = ${squatter.user.id}`;
    t.equal(sessions, 1, 'no session was opened for the account (only its own registration session)');

    expectError(t, await signIn(app, github, victim.id), 409, 'EMAIL_IN_USE');
    t.strictSame(await githubIdOf(squatter.email), [null], 'not on a retry either');
  });

  t.test('a GitHub sign-in that creates an account creates it verified', async (t) => {
    const user = addGithubUser(github, [{ email: uniqueEmail('fresh') }]);
    const signedIn = await me(app, await signIn(app, github, user.id));
    t.equal((signedIn as { emailVerified?: boolean }).emailVerified, true, 'GitHub verified the address');
  });

  t.test('a verified primary e-mail matching a verified password account signs into that account', async (t) => {
    const owner = await registerUser(app, uniqueEmail('owner'));
    t.strictSame(await githubIdOf(owner.email), [null], 'not linked before');
    // Verified the way a user does it: the link of the verification e-mail (its flow is in auth-email.test.ts).
    await database.sql`update users set email_verified = true where id = ${owner.user.id}`;
    const user = addGithubUser(github, [{ email: owner.email.toUpperCase() }]);

    const signedIn = await me(app, await signIn(app, github, user.id));
    t.equal(signedIn.id, owner.user.id, 'same user id');
    t.strictSame(await githubIdOf(owner.email), [user.id], 'github_id stored on the account');

    const login = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: owner.email, password: owner.password },
    });
    t.equal(login.statusCode, 200, 'the password still works');
    const viaToken = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(owner.token) });
    t.equal((viaToken.json() as { user: { id: string } }).user.id, owner.user.id);
  });

  t.test('an unverified primary e-mail matching an account neither links nor signs in', async (t) => {
    const owner = await registerUser(app, uniqueEmail('victim'));
    const attacker = addGithubUser(github, [{ email: owner.email, verified: false }]);
    const [{ count: usersBefore } = { count: 0 }] = await database.sql<{ count: number }[]>`
      select count(*)::int as count from users`;

    expectError(t, await signIn(app, github, attacker.id), 502, 'GITHUB_AUTH_FAILED');
    t.strictSame(await githubIdOf(owner.email), [null], 'the account stays unlinked');
    const [{ count: usersAfter } = { count: -1 }] = await database.sql<{ count: number }[]>`
      select count(*)::int as count from users`;
    t.equal(usersAfter, usersBefore, 'no account created');
  });

  t.test('callback without code: 400 MISSING_CODE', async (t) => {
    const { state } = await startSignIn(app);
    expectError(t, await callback(app, { state }, { [STATE_COOKIE]: state }), 400, 'MISSING_CODE');
    expectError(t, await callback(app, { code: '', state }, { [STATE_COOKIE]: state }), 400, 'MISSING_CODE');
  });

  t.test('state mismatch: 403 INVALID_STATE, and the code is never exchanged', async (t) => {
    const user = addGithubUser(github, [{ email: uniqueEmail('state') }]);
    const { state } = await startSignIn(app);
    const tokenCalls = () => github.requests.filter((request) => request.path === '/login/oauth/access_token').length;
    const before = tokenCalls();

    const code = github.issueCode(user.id, { redirectUri: CALLBACK_URL });
    expectError(t, await callback(app, { code, state }, { [STATE_COOKIE]: `${state}x` }), 403, 'INVALID_STATE');
    expectError(t, await callback(app, { code, state }), 403, 'INVALID_STATE');
    expectError(t, await callback(app, { code }, { [STATE_COOKIE]: state }), 403, 'INVALID_STATE');
    t.equal(tokenCalls(), before, 'GitHub was not asked');

    const ok = await callback(app, { code, state }, { [STATE_COOKIE]: state });
    t.equal(ok.statusCode, 302, 'the same code still works with the right state');
  });

  t.test('a state is good for one callback: the cookie is cleared, a replay is 403 INVALID_STATE', async (t) => {
    const user = addGithubUser(github, [{ email: uniqueEmail('replay') }]);
    const { state } = await startSignIn(app);
    const tokenCalls = () => github.requests.filter((request) => request.path === '/login/oauth/access_token').length;
    const first = await callback(
      app,
      { code: github.issueCode(user.id, { redirectUri: CALLBACK_URL }), state },
      { [STATE_COOKIE]: state },
    );
    t.equal(first.statusCode, 302, 'the first callback signs in');
    const cleared = cookie(first, STATE_COOKIE);
    t.equal(cleared?.value, '', 'the state cookie is cleared');
    t.equal(cleared?.path, '/api/v1/auth/github');
    t.ok(cleared?.expires && cleared.expires.getTime() <= Date.now(), 'and expired');

    // The same state/cookie pair again (a copied URL, a cookie that survived), even with a fresh code.
    const before = tokenCalls();
    const replayed = await callback(
      app,
      { code: github.issueCode(user.id, { redirectUri: CALLBACK_URL }), state },
      { [STATE_COOKIE]: state },
    );
    expectError(t, replayed, 403, 'INVALID_STATE');
    t.equal(tokenCalls(), before, 'GitHub was not asked');
  });

  t.test('a state that failed at GitHub is used up too', async (t) => {
    const { state } = await startSignIn(app);
    expectError(
      t,
      await callback(app, { code: 'not-a-code', state }, { [STATE_COOKIE]: state }),
      502,
      'GITHUB_AUTH_FAILED',
    );
    expectError(t, await callback(app, { code: 'not-a-code', state }, { [STATE_COOKIE]: state }), 403, 'INVALID_STATE');
  });

  t.test('a code GitHub does not know (GitHub answers 200 bad_verification_code): 502', async (t) => {
    const { state } = await startSignIn(app);
    expectError(
      t,
      await callback(app, { code: 'not-a-code', state }, { [STATE_COOKIE]: state }),
      502,
      'GITHUB_AUTH_FAILED',
    );

    // The state is used up by the failed attempt; a new sign-in with a real code works.
    const user = addGithubUser(github, [{ email: uniqueEmail('retry') }]);
    const code = github.issueCode(user.id, { redirectUri: CALLBACK_URL });
    const fresh = await startSignIn(app);
    t.equal((await callback(app, { code, state: fresh.state }, { [STATE_COOKIE]: fresh.state })).statusCode, 302);
    // The used code again, with a state of its own: GitHub refuses it.
    const again = await startSignIn(app);
    expectError(
      t,
      await callback(app, { code, state: again.state }, { [STATE_COOKIE]: again.state }),
      502,
      'GITHUB_AUTH_FAILED',
    );
  });

  t.test('GitHub answering 500: 502 GITHUB_AUTH_FAILED', async (t) => {
    const user = addGithubUser(github, [{ email: uniqueEmail('outage') }]);
    t.teardown(() => github.restore());

    github.fail('token');
    expectError(t, await signIn(app, github, user.id), 502, 'GITHUB_AUTH_FAILED');
    github.restore();

    github.fail('api');
    const requestsBefore = github.requests.length;
    expectError(t, await signIn(app, github, user.id), 502, 'GITHUB_AUTH_FAILED');
    t.ok(
      github.requests.slice(requestsBefore).some((request) => request.path === '/user'),
      'the token exchange worked and /user failed',
    );
    github.restore();

    t.equal((await signIn(app, github, user.id)).statusCode, 302, 'works again once GitHub is back');
  });
});

t.test('the callback is rate limited per IP, on a counter of its own', async (t) => {
  const github = await startFakeGithub();
  t.teardown(() => github.close());
  const { app } = await buildTestApp(t, { ...github.env, RATE_LIMIT_LOGIN_MAX: '3' });
  for (let i = 0; i < 3; i++) {
    expectError(
      t,
      await callback(app, { code: 'c', state: `s${i}` }, { [STATE_COOKIE]: 'other' }),
      403,
      'INVALID_STATE',
    );
  }
  const limited = await callback(app, { code: 'c', state: 's' }, { [STATE_COOKIE]: 's' });
  expectError(t, limited, 429, 'RATE_LIMITED');
  t.equal(limited.headers['retry-after'], '60');
  const start = await app.inject({ method: 'GET', url: '/api/v1/auth/github' });
  t.equal(start.statusCode, 302, 'the start (login counter) is not used up by callbacks');
});

t.test('without GITHUB_CLIENT_ID both routes answer 503 OAUTH_NOT_CONFIGURED', async (t) => {
  const { app } = await buildTestApp(t);
  expectError(t, await app.inject({ method: 'GET', url: '/api/v1/auth/github' }), 503, 'OAUTH_NOT_CONFIGURED');
  expectError(
    t,
    await callback(app, { code: 'abc', state: 'xyz' }, { [STATE_COOKIE]: 'xyz' }),
    503,
    'OAUTH_NOT_CONFIGURED',
  );
  expectError(t, await callback(app, {}), 503, 'OAUTH_NOT_CONFIGURED');
});
