import { Writable } from 'node:stream';
import { schema } from '@webpush/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { bearer, buildTestApp, createApp, registerUser } from '../../helper.js';

// docs/security.md, "Cookie writes come from the dashboard's origin only": a write carried by the wp_session cookie from an
// origin other than PUBLIC_URL's is 403 ORIGIN_NOT_ALLOWED and changes nothing.
const { app, config, database } = await buildTestApp(t, { RATE_LIMIT_LOGIN_MAX: '1000' });
const dashboardOrigin = new URL(config.publicUrl).origin;
const foreignOrigin = 'https://evil.example.com';
const siblingOrigin = 'http://sub.localhost:3000';

const user = await registerUser(app);
const owned = await createApp(app, user.token);
const cookies = { wp_session: user.token };

interface Operation {
  method: string;
  path: string;
}

/** Every unsafe operation the OpenAPI document says the session cookie can authenticate. */
const document = app.swagger() as {
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
};
const cookieWrites: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => ['post', 'put', 'patch', 'delete'].includes(method))
    .filter(([, operation]) => (operation.security ?? []).some((requirement) => 'sessionCookie' in requirement))
    .map(([method]) => ({ method: method.toUpperCase(), path })),
);

/** A concrete URL for a documented path: the user's own app, made-up ids elsewhere. */
const concrete = (path: string) =>
  path.replace('{appId}', owned.id).replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');

const inject = (operation: Operation, headers: Record<string, string>) =>
  app.inject({
    method: operation.method as 'POST',
    url: concrete(operation.path),
    cookies,
    headers: { 'content-type': 'application/json', ...headers },
    payload: operation.method === 'DELETE' ? undefined : '{}',
  });

t.test('the walk covers the session write routes', async (t) => {
  const names = cookieWrites.map(({ method, path }) => `${method} ${path}`);
  for (const expected of [
    'POST /api/v1/auth/logout',
    'POST /api/v1/apps',
    'DELETE /api/v1/apps/{appId}',
    'POST /api/v1/apps/{appId}/identity-secret',
    'POST /api/v1/apps/{appId}/webhook/rotate-secret',
    'POST /api/v1/apps/{appId}/keys',
    'DELETE /api/v1/auth/sessions',
  ]) {
    t.ok(names.includes(expected), `${expected} is a cookie write route`);
  }
});

t.test('every cookie write from a foreign or sibling origin is 403 ORIGIN_NOT_ALLOWED', async (t) => {
  for (const operation of cookieWrites) {
    for (const origin of [foreignOrigin, siblingOrigin, 'null']) {
      const response = await inject(operation, { origin });
      t.equal(response.statusCode, 403, `${operation.method} ${operation.path} from ${origin}`);
      t.same(response.json(), { error: response.json().error, code: 'ORIGIN_NOT_ALLOWED' });
    }
    const crossSite = await inject(operation, { 'sec-fetch-site': 'cross-site' });
    t.equal(crossSite.statusCode, 403, `${operation.method} ${operation.path} with Sec-Fetch-Site: cross-site`);
    t.equal(crossSite.json().code, 'ORIGIN_NOT_ALLOWED');
  }
});

t.test('a refused write changes nothing', async (t) => {
  const before = await database.db.select().from(schema.apps).where(eq(schema.apps.id, owned.id));
  const headers = { origin: foreignOrigin };
  const attempts = [
    { method: 'PATCH', url: `/api/v1/apps/${owned.id}`, payload: { name: 'Renamed' } },
    { method: 'POST', url: `/api/v1/apps/${owned.id}/identity-secret` },
    { method: 'DELETE', url: `/api/v1/apps/${owned.id}` },
    { method: 'POST', url: '/api/v1/auth/logout' },
  ] as const;
  for (const attempt of attempts) {
    const response = await app.inject({ ...attempt, cookies, headers });
    t.equal(response.statusCode, 403, `${attempt.method} ${attempt.url}`);
  }
  const after = await database.db.select().from(schema.apps).where(eq(schema.apps.id, owned.id));
  t.same(after, before, 'the app row is untouched (name, identity secret)');
  const [session] = await database.db.select().from(schema.sessions).where(eq(schema.sessions.userId, user.user.id));
  t.ok(session, 'the session still exists');
  const me = await app.inject({ method: 'GET', url: '/api/v1/auth/me', cookies });
  t.equal(me.statusCode, 200, 'the session still works');
});

t.test("the dashboard's own requests and bearer tokens still work", async (t) => {
  const sameOrigin = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owned.id}`,
    cookies,
    headers: { origin: dashboardOrigin, 'sec-fetch-site': 'same-origin' },
    payload: { name: 'From the dashboard' },
  });
  t.equal(sameOrigin.statusCode, 200, 'same origin, cookie');

  const noOrigin = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owned.id}`,
    cookies,
    payload: { name: 'No origin header' },
  });
  t.equal(noOrigin.statusCode, 200, 'no Origin header (not a cross-origin browser request)');

  const read = await app.inject({ method: 'GET', url: '/api/v1/apps', cookies, headers: { origin: foreignOrigin } });
  t.equal(read.statusCode, 200, 'reads are not writes');

  const withBearer = await app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owned.id}`,
    headers: { ...bearer(user.token), origin: foreignOrigin, 'sec-fetch-site': 'cross-site' },
    payload: { name: 'Bearer' },
  });
  t.equal(withBearer.statusCode, 200, 'a bearer token is not affected by Origin');
});

t.test('outside production, the dashboard answers on every loopback name of its port', async (t) => {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const local = await buildTestApp(
    t,
    { NODE_ENV: 'development', PUBLIC_URL: 'http://localhost:3917', LOG_LEVEL: 'warn' },
    { logStream },
  );
  const localUser = await registerUser(local.app);
  const localApp = await createApp(local.app, localUser.token);
  const rename = (origin: string) =>
    local.app.inject({
      method: 'PATCH',
      url: `/api/v1/apps/${localApp.id}`,
      cookies: { wp_session: localUser.token },
      headers: { origin, 'sec-fetch-site': 'same-origin' },
      payload: { name: `From ${origin}` },
    });
  for (const origin of ['http://localhost:3917', 'http://127.0.0.1:3917', 'http://[::1]:3917']) {
    t.equal((await rename(origin)).statusCode, 200, `${origin} may write`);
  }

  const otherPort = await rename('http://127.0.0.1:3000');
  t.equal(otherPort.statusCode, 403, 'another port is another origin');
  t.equal(otherPort.json().code, 'ORIGIN_NOT_ALLOWED');
  t.notMatch(otherPort.json().error, /アプリ/, "the message does not talk about an app's allowed origins");
  t.match(otherPort.json().error, /PUBLIC_URL/);
  const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.publicUrlOrigin);
  t.match(
    logged,
    { level: 40, origin: 'http://127.0.0.1:3000', publicUrlOrigin: 'http://localhost:3917' },
    'the log names the refused origin and PUBLIC_URL’s',
  );
  t.match(String(logged?.msg), /http:\/\/127\.0\.0\.1:3000.*PUBLIC_URL.*http:\/\/localhost:3917/);

  const production = await buildTestApp(t, { NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:3917' });
  const productionUser = await registerUser(production.app);
  const fromLoopback = await production.app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    cookies: { wp_session: productionUser.token },
    headers: { origin: 'http://127.0.0.1:3917' },
    payload: { name: 'Loopback' },
  });
  t.equal(fromLoopback.json().code, 'ORIGIN_NOT_ALLOWED');
  t.equal(fromLoopback.statusCode, 403, "in production only PUBLIC_URL's own origin");
});
