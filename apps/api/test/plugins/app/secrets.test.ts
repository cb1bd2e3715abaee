import { randomBytes } from 'node:crypto';
import { keyedHash, openSecret, vapidKeyContext } from '@webpush/secrets';
import { type IsolatedResources, testConfig } from '@webpush/testing';
import argon2 from 'argon2';
import t from 'tap';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey, registerUser, uniqueEmail } from '../../helper.js';

const PASSWORD = 'correct horse battery';

t.test('without ENCRYPTION_KEY the API starts, and app creation answers 503 CONFIG_ERROR', async (t) => {
  const ctx = await buildTestApp(t, { ENCRYPTION_KEY: undefined });
  t.equal(ctx.config.encryptionKey, null, 'the test config really has no key');
  t.ok(
    ctx.config.problems.some((problem) => problem.includes('ENCRYPTION_KEY')),
    'the problem is reported',
  );
  t.equal((await ctx.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);

  const user = await registerUser(ctx.app);
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(user.token),
    payload: { name: 'Needs a key' },
  });
  assertError(t, response, 'CONFIG_ERROR');
  const [row] = await ctx.database.sql`select count(*)::int as n from apps`;
  t.equal(row?.n, 0, 'no app without a sealed private key');
  const me = await ctx.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(user.token) });
  t.equal(me.statusCode, 200, 'what does not need the key keeps working');
});

t.test('an ENCRYPTION_KEY that is not 32 bytes counts as missing', async (t) => {
  // Only the configuration is under test: no database or Redis is touched.
  const resources: IsolatedResources = {
    databaseUrl: 'postgres://unused@127.0.0.1/unused',
    databaseName: 'unused',
    redisUrl: 'redis://127.0.0.1:6379',
    redisKeyPrefix: 'unused',
    dispose: async () => {},
  };
  for (const bytes of [16, 31, 33]) {
    const config = testConfig(resources, { ENCRYPTION_KEY: randomBytes(bytes).toString('base64') });
    t.equal(config.encryptionKey, null, `${bytes} bytes`);
    t.ok(
      config.problems.some((problem) => problem.includes('ENCRYPTION_KEY')),
      'reported',
    );
  }
  t.equal(testConfig(resources).encryptionKey?.length, 32, 'the default test key is valid');
});

t.test('without API_KEY_PEPPER, everything that needs a key or a session answers 503 CONFIG_ERROR', async (t) => {
  const ctx = await buildTestApp(t, { API_KEY_PEPPER: undefined });
  const { app } = ctx;
  const sql = ctx.database.sql;
  t.equal(ctx.config.apiKeyPepper, null);
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the API is up');

  const register = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { email: uniqueEmail(), password: PASSWORD },
  });
  assertError(t, register, 'CONFIG_ERROR');
  t.equal((await sql`select count(*)::int as n from users`)[0]?.n, 0, 'nobody registered without a session');

  // An account from before the pepper went missing cannot sign in either.
  const email = uniqueEmail('existing');
  await sql`insert into users (email, password_hash) values (${email}, ${await argon2.hash(PASSWORD)})`;
  for (const candidate of [email, uniqueEmail('unknown')]) {
    const login = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: candidate, password: PASSWORD },
    });
    assertError(t, login, 'CONFIG_ERROR');
  }
  t.equal((await sql`select count(*)::int as n from sessions`)[0]?.n, 0);

  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer('wps_any') }),
    'CONFIG_ERROR',
  );
  assertError(t, await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer('wps_any') }), 'CONFIG_ERROR');
  const keyRoutes = [
    { method: 'GET', url: '/api/v1/vapid-public-key' },
    { method: 'POST', url: '/api/v1/subscribe', payload: fakeSubscription() },
    { method: 'DELETE', url: '/api/v1/subscribe', payload: { endpoint: fakeSubscription().endpoint } },
  ] as const;
  for (const route of keyRoutes) {
    assertError(t, await app.inject({ ...route, headers: bearer('wpk_any') }), 'CONFIG_ERROR');
  }
});

t.test('no secret is stored in plaintext', async (t) => {
  const ctx = await buildTestApp(t);
  const { app } = ctx;
  const sql = ctx.database.sql;
  const owner = await ownerWithKey(app, 'full');
  const browserKey = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${owner.app.id}/keys`,
    headers: bearer(owner.user.token),
    payload: { scope: 'subscribe_only' },
  });
  const subscribeSecret = (browserKey.json() as { secret: string }).secret;
  const subscribed = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(subscribeSecret),
    payload: fakeSubscription(),
  });
  t.equal(subscribed.statusCode, 201);

  const [appRow] = await sql`select vapid_private_key_sealed from apps where id = ${owner.app.id}`;
  const sealed = String(appRow?.vapid_private_key_sealed);
  const encryptionKey = ctx.config.encryptionKey;
  const pepper = ctx.config.apiKeyPepper;
  if (!encryptionKey || !pepper) throw new Error('test config lacks its secrets');
  const vapidPrivateKey = openSecret(encryptionKey, sealed, vapidKeyContext(owner.app.id));
  t.match(vapidPrivateKey, /^[A-Za-z0-9_-]{43}$/, 'the sealed value opens to a raw P-256 private key');
  t.match(sealed, /^v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

  const secrets: Record<string, string> = {
    password: owner.user.password,
    'session token': owner.user.token,
    'session token without prefix': owner.user.token.slice(4),
    'API key secret': owner.secret,
    'API key secret without prefix': owner.secret.slice(4),
    'browser API key secret': subscribeSecret,
    'VAPID private key': vapidPrivateKey,
    'VAPID private key (base64)': Buffer.from(vapidPrivateKey, 'base64url').toString('base64'),
    'VAPID private key (hex)': Buffer.from(vapidPrivateKey, 'base64url').toString('hex'),
  };

  // Every text-like column of every table the service owns, dumped as text.
  const columns = await sql<{ table_schema: string; table_name: string; column_name: string }[]>`
    select table_schema, table_name, column_name from information_schema.columns
    where table_schema not in ('pg_catalog', 'information_schema')
      and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')`;
  t.ok(columns.length >= 10, `${columns.length} text columns inspected`);
  const dump: string[] = [];
  for (const column of columns) {
    const rows = await sql`
      select ${sql(column.column_name)}::text as value from ${sql(column.table_schema)}.${sql(column.table_name)}`;
    for (const row of rows)
      if (row.value !== null) dump.push(`${column.table_name}.${column.column_name}=${row.value}`);
  }
  const text = dump.join('\n');
  t.ok(text.includes(owner.user.email), 'the dump does contain the data (sanity check)');
  for (const [label, secret] of Object.entries(secrets)) {
    t.notOk(text.includes(secret), `no ${label} in the database`);
  }

  const [user] = await sql`select password_hash from users where id = ${owner.user.user.id}`;
  t.match(user?.password_hash, /^\$argon2id\$/, 'passwords are argon2id hashes');
  t.ok(await argon2.verify(String(user?.password_hash), owner.user.password), 'of the password');
  const [session] = await sql`select token_hash from sessions where user_id = ${owner.user.user.id}`;
  t.equal(session?.token_hash, keyedHash(pepper, owner.user.token), 'sessions are stored as their keyed hash');
  const keyHashes = await sql`select key_hash from api_keys where app_id = ${owner.app.id} order by created_at`;
  t.strictSame(
    keyHashes.map((row) => row.key_hash),
    [keyedHash(pepper, owner.secret), keyedHash(pepper, subscribeSecret)],
    'API keys are stored as their keyed hash',
  );
});
