import t from 'tap';
import { assertError, sessionCookie, UUID } from '../assertions.js';
import { bearer, buildTestApp, registerUser, uniqueEmail } from '../helper.js';

// Rate limits have their own test file; here they would only get in the way of the registrations.
const ctx = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;
const PASSWORD = 'correct horse battery';

const register = (payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: payload as object });
const login = (payload: unknown) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: payload as object });
const me = (headers: Record<string, string> = {}, cookies: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/api/v1/auth/me', headers, cookies });

interface SessionBody {
  user: { id: string; email: string; plan: string; emailVerified: boolean };
  token: string;
}

t.test('register answers 201 with the user, a session token and an HttpOnly session cookie', async (t) => {
  const email = uniqueEmail('register');
  const response = await register({ email, password: PASSWORD });
  t.equal(response.statusCode, 201);
  t.match(response.headers['content-type'], /^application\/json/);
  const body = response.json() as SessionBody;
  t.strictSame(Object.keys(body).sort(), ['token', 'user']);
  t.strictSame(body.user, {
    id: body.user.id,
    email,
    plan: 'free',
    emailVerified: false,
    language: 'en',
    role: 'customer',
    totpEnabled: false,
  });
  t.match(body.user.id, UUID);
  t.match(body.token, /^wps_[A-Za-z0-9_-]{43,}$/);

  const cookie = sessionCookie(response);
  if (!cookie) throw new Error('no wp_session cookie');
  t.equal(cookie.value, body.token, 'the cookie carries the same session');
  t.ok(cookie.attributes.has('httponly'), 'HttpOnly');
  t.equal(cookie.attributes.get('samesite')?.toLowerCase(), 'lax', 'SameSite=Lax');
  t.equal(cookie.attributes.get('path'), '/');
  t.notOk(cookie.attributes.has('secure'), 'not Secure on an http PUBLIC_URL');

  const [user] = await sql`select email, plan, password_hash from users where id = ${body.user.id}`;
  t.equal(user?.email, email);
  t.equal(user?.plan, 'free');
  const sessions = await sql`
    select token_hash, expires_at > now() + interval '1 day' as lasts_days from sessions where user_id = ${body.user.id}`;
  t.equal(sessions.length, 1, 'one session stored');
  t.not(sessions[0]?.token_hash, body.token, 'the token is not stored as such');
  t.equal(sessions[0]?.lasts_days, true, 'the session lives for days');

  const viaHeader = await me(bearer(body.token));
  t.equal(viaHeader.statusCode, 200);
  t.strictSame(viaHeader.json(), { user: body.user });
});

t.test('the session cookie alone authenticates /auth/me', async (t) => {
  const user = await registerUser(app);
  const response = await me({}, { wp_session: user.token });
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { user: user.user });
  assertError(t, await me({}, { wp_session: 'wps_not-a-session' }), 'INVALID_SESSION');
});

t.test('the session cookie is Secure when PUBLIC_URL is https', async (t) => {
  const secure = await buildTestApp(t, { PUBLIC_URL: 'https://push.example.com' });
  const response = await secure.app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { email: uniqueEmail('secure'), password: PASSWORD },
  });
  t.equal(response.statusCode, 201);
  const cookie = sessionCookie(response);
  t.ok(cookie?.attributes.has('secure'), 'Secure');
  t.ok(cookie?.attributes.has('httponly'), 'HttpOnly');
  t.equal(cookie?.attributes.get('samesite')?.toLowerCase(), 'lax');
});

t.test('login answers 200 with the user, a new session token and the cookie', async (t) => {
  const user = await registerUser(app);
  const response = await login({ email: user.email, password: user.password });
  t.equal(response.statusCode, 200);
  const body = response.json() as SessionBody;
  t.strictSame(body, { user: user.user, token: body.token });
  t.match(body.token, /^wps_[A-Za-z0-9_-]{43,}$/);
  t.not(body.token, user.token, 'a new session');
  t.equal(sessionCookie(response)?.value, body.token);
  const [row] = await sql`select count(*)::int as n from sessions where user_id = ${user.user.id}`;
  t.equal(row?.n, 2, 'register and login each opened a session');
  t.equal((await me(bearer(body.token))).statusCode, 200);
});

t.test('e-mails are trimmed and lower-cased, and login compares them case-insensitively', async (t) => {
  const response = await register({ email: '  Mixed.Case@Example.COM ', password: PASSWORD });
  t.equal(response.statusCode, 201);
  const body = response.json() as SessionBody;
  t.equal(body.user.email, 'mixed.case@example.com');
  const [row] = await sql`select email from users where id = ${body.user.id}`;
  t.equal(row?.email, 'mixed.case@example.com');

  const loggedIn = await login({ email: 'MIXED.case@example.com', password: PASSWORD });
  t.equal(loggedIn.statusCode, 200);
  t.equal((loggedIn.json() as SessionBody).user.id, body.user.id);
  const padded = await login({ email: ' mixed.case@EXAMPLE.com  ', password: PASSWORD });
  t.equal(padded.statusCode, 200);
});

t.test('an e-mail already registered is 409 EMAIL_IN_USE, in any case', async (t) => {
  const user = await registerUser(app);
  assertError(t, await register({ email: user.email, password: 'another password' }), 'EMAIL_IN_USE');
  const shouted = await register({ email: user.email.toUpperCase(), password: 'another password' });
  assertError(t, shouted, 'EMAIL_IN_USE');
  const [row] = await sql`select count(*)::int as n from users where lower(email) = ${user.email}`;
  t.equal(row?.n, 1, 'still one account');
  t.notOk(sessionCookie(shouted), 'no cookie on an error');
});

t.test('a malformed e-mail is 400 INVALID_EMAIL', async (t) => {
  const [before] = await sql`select count(*)::int as n from users`;
  for (const email of ['not-an-email', 'a@b', 'two@@example.com', 'sp ace@example.com', '@example.com', 'x@.']) {
    assertError(t, await register({ email, password: PASSWORD }), 'INVALID_EMAIL');
  }
  assertError(t, await register({ email: `${'a'.repeat(250)}@example.com`, password: PASSWORD }), 'INVALID_EMAIL');
  const [after] = await sql`select count(*)::int as n from users`;
  t.equal(after?.n, before?.n, 'nobody was registered');
});

t.test('a password shorter than 8 or longer than 128 characters is 400 INVALID_INPUT', async (t) => {
  const refused = async (password: string) => {
    const response = await register({ email: uniqueEmail(), password });
    t.equal(response.statusCode, 400);
    t.equal(response.json().code, 'INVALID_INPUT');
  };
  await refused('seven77');
  await refused('x'.repeat(129));
  // Characters, not UTF-16 units: 128 emoji are 256 units and still allowed, 7 are not enough.
  await refused('🔑'.repeat(7));
  t.equal((await register({ email: uniqueEmail(), password: 'kq7#vz2m' })).statusCode, 201, '8 is enough');
  t.equal((await register({ email: uniqueEmail(), password: '🔑'.repeat(128) })).statusCode, 201, '128 is allowed');
});

t.test('a missing field, an empty body or no body at all is 400 MISSING_FIELDS', async (t) => {
  for (const send of [register, login]) {
    assertError(t, await send({ email: uniqueEmail() }), 'MISSING_FIELDS');
    assertError(t, await send({ password: PASSWORD }), 'MISSING_FIELDS');
    assertError(t, await send({ email: '', password: PASSWORD }), 'MISSING_FIELDS');
    assertError(t, await send({ email: uniqueEmail(), password: '' }), 'MISSING_FIELDS');
    assertError(t, await send({}), 'MISSING_FIELDS');
  }
  for (const url of ['/api/v1/auth/register', '/api/v1/auth/login']) {
    assertError(t, await app.inject({ method: 'POST', url }), 'MISSING_FIELDS', {});
    const emptyJson = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' } });
    assertError(t, emptyJson, 'MISSING_FIELDS');
  }
});

t.test('a wrong JSON type in the credentials is 400 INVALID_INPUT', async (t) => {
  assertError(t, await register({ email: 123, password: PASSWORD }), 'INVALID_INPUT');
  assertError(t, await register({ email: uniqueEmail(), password: ['x'] }), 'INVALID_INPUT');
  assertError(t, await login({ email: uniqueEmail(), password: 12345678 }), 'INVALID_INPUT');
});

t.test('wrong password and unknown e-mail get the same 401 INVALID_CREDENTIALS', async (t) => {
  const user = await registerUser(app);
  const wrongPassword = await login({ email: user.email, password: 'wrong password!' });
  const unknownEmail = await login({ email: uniqueEmail('nobody'), password: user.password });
  assertError(t, wrongPassword, 'INVALID_CREDENTIALS');
  assertError(t, unknownEmail, 'INVALID_CREDENTIALS');
  t.equal(wrongPassword.body, unknownEmail.body, 'byte-identical bodies');
  // An account made through GitHub has no password: no password opens it.
  const githubOnly = uniqueEmail('github-only');
  await sql`insert into users (email, password_hash, github_id) values (${githubOnly}, null, 4242)`;
  assertError(t, await login({ email: githubOnly, password: user.password }), 'INVALID_CREDENTIALS');
  t.notOk(sessionCookie(wrongPassword), 'no cookie');
  const [row] = await sql`select count(*)::int as n from sessions where user_id = ${user.user.id}`;
  t.equal(row?.n, 1, 'no session was opened');
});

t.test('logout answers 204, kills that session only, and clears the cookie', async (t) => {
  const user = await registerUser(app);
  const second = (await login({ email: user.email, password: user.password })).json() as SessionBody;

  const response = await app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: bearer(second.token) });
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  const cleared = sessionCookie(response);
  t.equal(cleared?.value, '', 'the cookie is emptied');
  t.ok(
    cleared?.attributes.get('max-age') === '0' ||
      new Date(cleared?.attributes.get('expires') ?? '').getTime() < Date.now(),
    'and expired',
  );

  assertError(t, await me(bearer(second.token)), 'INVALID_SESSION');
  assertError(t, await me({}, { wp_session: second.token }), 'INVALID_SESSION');
  const again = await app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: bearer(second.token) });
  assertError(t, again, 'INVALID_SESSION');
  t.equal((await me(bearer(user.token))).statusCode, 200, 'the other session lives on');
  const [row] = await sql`select count(*)::int as n from sessions where user_id = ${user.user.id}`;
  t.equal(row?.n, 1, 'the session row is gone');

  const byCookie = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/logout',
    cookies: { wp_session: user.token },
  });
  t.equal(byCookie.statusCode, 204, 'logout also works with the cookie');
  assertError(t, await me(bearer(user.token)), 'INVALID_SESSION');
});

t.test('an expired session is 401 INVALID_SESSION', async (t) => {
  const user = await registerUser(app);
  t.equal((await me(bearer(user.token))).statusCode, 200);
  await sql`update sessions set expires_at = now() - interval '1 second' where user_id = ${user.user.id}`;
  assertError(t, await me(bearer(user.token)), 'INVALID_SESSION');
  assertError(t, await me({}, { wp_session: user.token }), 'INVALID_SESSION');
});

t.test('a missing or malformed Authorization header is 401 UNAUTHORIZED', async (t) => {
  assertError(t, await me(), 'UNAUTHORIZED');
  for (const authorization of ['Basic x', 'Bearer', 'Bearer ', 'Bearer  ', 'Bearer a b', 'wps_token', 'Token wps_x']) {
    assertError(t, await me({ authorization }), 'UNAUTHORIZED', {});
  }
  // A malformed header is not rescued by a valid cookie: the header decides.
  const user = await registerUser(app);
  assertError(t, await me({ authorization: 'Basic x' }, { wp_session: user.token }), 'UNAUTHORIZED');
  // The scheme is case-insensitive (RFC 9110).
  t.equal((await me({ authorization: `bearer ${user.token}` })).statusCode, 200, 'lower-case bearer');
  // Well-formed but not a live session.
  for (const token of ['wps_unknown', 'nonsense', 'wpk_not-a-session']) {
    assertError(t, await me(bearer(token)), 'INVALID_SESSION');
  }
});
