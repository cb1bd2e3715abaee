import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, registerUser } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

interface SessionView {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  userAgent: string | null;
  current: boolean;
}

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const CHROME = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 Chrome/150.0 Safari/537.36';

async function login(email: string, password: string, userAgent?: string) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: userAgent ? { 'user-agent': userAgent } : {},
    payload: { email, password },
  });
  if (response.statusCode !== 200) throw new Error(`login: ${response.statusCode} ${response.body}`);
  return (response.json() as { token: string }).token;
}

const listSessions = (token: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: { ...bearer(token), ...headers } });
const endSession = (token: string, id: string) =>
  app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${encodeURIComponent(id)}`, headers: bearer(token) });
const endOthers = (token: string) =>
  app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions', headers: bearer(token) });
const me = (token: string) => app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });

t.test('GET /auth/sessions lists the live sessions of the caller, marking the current one', async (t) => {
  const user = await registerUser(app);
  const firefox = await login(user.email, user.password, FIREFOX);
  const chrome = await login(user.email, user.password, CHROME);
  const other = await registerUser(app);
  await sql`insert into sessions (user_id, token_hash, expires_at)
            values (${user.user.id}, 'expired-one', now() - interval '1 minute')`;

  const response = await listSessions(firefox);
  t.equal(response.statusCode, 200);
  const { sessions } = response.json() as { sessions: SessionView[] };
  t.equal(sessions.length, 3, 'register + two logins; the expired one is not listed');
  for (const session of sessions) {
    t.strictSame(Object.keys(session).sort(), ['createdAt', 'current', 'id', 'lastUsedAt', 'userAgent']);
    t.match(session.id, UUID);
    t.equal(new Date(session.createdAt).toISOString(), session.createdAt);
    t.equal(new Date(session.lastUsedAt).toISOString(), session.lastUsedAt);
  }
  const current = sessions.filter((session) => session.current);
  t.equal(current.length, 1, 'exactly one is current');
  t.equal(current[0]?.userAgent, FIREFOX, 'the user agent of the request that opened it');
  t.ok(
    sessions.some((session) => session.userAgent === CHROME && !session.current),
    'the Chrome session is listed, not current',
  );
  const rows = await sql<
    { id: string }[]
  >`select id from sessions where user_id = ${user.user.id} and expires_at > now()`;
  t.strictSame(sessions.map((session) => session.id).sort(), rows.map((row) => row.id).sort(), 'exactly the rows');

  const fromChrome = (await listSessions(chrome)).json() as { sessions: SessionView[] };
  t.equal(fromChrome.sessions.find((session) => session.current)?.userAgent, CHROME, 'current is per request');

  const theirs = (await listSessions(other.token)).json() as { sessions: SessionView[] };
  t.equal(theirs.sessions.length, 1, 'another user sees only their own');
  t.notOk(
    theirs.sessions.some((session) => sessions.some((mine) => mine.id === session.id)),
    'none of the first user’s',
  );
});

t.test('DELETE /auth/sessions/{id} ends one session; another user’s or an unknown id is 404', async (t) => {
  const user = await registerUser(app);
  const second = await login(user.email, user.password, CHROME);
  const { sessions } = (await listSessions(user.token)).json() as { sessions: SessionView[] };
  const target = sessions.find((session) => !session.current);
  if (!target) throw new Error('no second session');

  const intruder = await registerUser(app);
  assertError(t, await endSession(intruder.token, target.id), 'NOT_FOUND');
  t.equal((await me(second)).statusCode, 200, 'an intruder cannot end it');

  const ended = await endSession(user.token, target.id);
  t.equal(ended.statusCode, 204);
  t.equal(ended.body, '');
  assertError(t, await me(second), 'INVALID_SESSION');
  t.equal((await me(user.token)).statusCode, 200, 'the current session goes on');
  const [row] = await sql`select count(*)::int as n from sessions where id = ${target.id}`;
  t.equal(row?.n, 0, 'the row is gone');

  assertError(t, await endSession(user.token, target.id), 'NOT_FOUND');
  for (const id of ['00000000-0000-0000-0000-000000000000', 'not-a-uuid', "1' or '1'='1"]) {
    assertError(t, await endSession(user.token, id), 'NOT_FOUND');
  }
});

t.test('DELETE /auth/sessions/{id} of the current session signs the caller out', async (t) => {
  const user = await registerUser(app);
  const { sessions } = (await listSessions(user.token)).json() as { sessions: SessionView[] };
  const current = sessions.find((session) => session.current);
  const ended = await endSession(user.token, current?.id ?? '');
  t.equal(ended.statusCode, 204);
  t.match(String(ended.headers['set-cookie']), /wp_session=;/, 'the cookie is cleared');
  assertError(t, await me(user.token), 'INVALID_SESSION');
});

t.test('DELETE /auth/sessions ends every session but the current one, of this user only', async (t) => {
  const user = await registerUser(app);
  const others = [await login(user.email, user.password), await login(user.email, user.password)];
  const bystander = await registerUser(app);

  const response = await endOthers(user.token);
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  for (const token of others) assertError(t, await me(token), 'INVALID_SESSION');
  t.equal((await me(user.token)).statusCode, 200, 'the current one lives');
  t.equal((await me(bystander.token)).statusCode, 200, 'other users are untouched');
  const [row] = await sql`select count(*)::int as n from sessions where user_id = ${user.user.id}`;
  t.equal(row?.n, 1);
  t.equal((await endOthers(user.token)).statusCode, 204, 'nothing left to end is still 204');
});

t.test('session routes need a session', async (t) => {
  assertError(t, await app.inject({ method: 'GET', url: '/api/v1/auth/sessions' }), 'UNAUTHORIZED');
  assertError(t, await app.inject({ method: 'DELETE', url: '/api/v1/auth/sessions' }), 'UNAUTHORIZED');
  assertError(t, await listSessions('wps_not-a-session'), 'INVALID_SESSION');
  assertError(t, await endOthers('wpk_an-api-key'), 'INVALID_SESSION');
  const user = await registerUser(app);
  const viaCookie = await app.inject({
    method: 'GET',
    url: '/api/v1/auth/sessions',
    cookies: { wp_session: user.token },
  });
  t.equal(viaCookie.statusCode, 200, 'the cookie works too');
});

t.test('lastUsedAt and userAgent are written at most once a minute per session', async (t) => {
  const user = await registerUser(app);
  const { sessions } = (await listSessions(user.token)).json() as { sessions: SessionView[] };
  const id = sessions[0]?.id ?? '';
  const state = async () =>
    (
      await sql<{ last_used_at: string; user_agent: string | null; xmin: string }[]>`
        select last_used_at::text, user_agent, xmin::text from sessions where id = ${id}`
    )[0];

  // Used 30 s ago: two more requests within the minute write nothing (the row version stays).
  await sql`update sessions set last_used_at = now() - interval '30 seconds', user_agent = 'old agent' where id = ${id}`;
  const recent = await state();
  await listSessions(user.token, { 'user-agent': FIREFOX });
  await listSessions(user.token, { 'user-agent': CHROME });
  t.strictSame(await state(), recent, 'no write within the minute');

  // Used 2 minutes ago: the next request writes once, the one after it does not.
  await sql`update sessions set last_used_at = now() - interval '2 minutes' where id = ${id}`;
  const stale = await state();
  const before = Date.now();
  await listSessions(user.token, { 'user-agent': FIREFOX });
  const touched = await state();
  t.not(touched?.xmin, stale?.xmin, 'one write');
  t.ok(
    Math.abs(Date.parse(touched?.last_used_at ?? '') - before) < 5_000,
    'lastUsedAt is now (the database clock, close to ours)',
  );
  t.equal(touched?.user_agent, FIREFOX, 'the user agent of that request');
  await listSessions(user.token, { 'user-agent': CHROME });
  await me(user.token);
  t.strictSame(await state(), touched, 'the second and third requests wrote nothing');

  const listed = (await listSessions(user.token)).json() as { sessions: SessionView[] };
  t.equal(
    listed.sessions[0]?.lastUsedAt,
    new Date(touched?.last_used_at ?? '').toISOString(),
    'the list shows the column',
  );
  t.equal(listed.sessions[0]?.userAgent, FIREFOX);
});

t.test('a very long user agent is stored truncated, not refused', async (t) => {
  const user = await registerUser(app);
  const token = await login(user.email, user.password, `UA ${'x'.repeat(5_000)}`);
  const { sessions } = (await listSessions(token)).json() as { sessions: SessionView[] };
  t.equal(sessions.find((session) => session.current)?.userAgent?.length, 512);
});
