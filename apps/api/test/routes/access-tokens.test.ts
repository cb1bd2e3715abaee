import { keyedHash } from '@webpush/secrets';
import { waitFor } from '@webpush/testing';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createApp, registerUser } from '../helper.js';

// Personal access tokens (`wpt_…`): made, listed and revoked with a session; they act as their
// user on /apps/** and are refused on /auth/**; a revoked one is refused at once everywhere.
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

const owner = await registerUser(app);
const ownerApp = await createApp(app, owner.token);

interface PublicToken {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}
interface CreatedToken {
  token: PublicToken;
  secret: string;
}

const createToken = async (session: string, name = 'CI pipeline'): Promise<CreatedToken> => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/tokens',
    headers: bearer(session),
    payload: { name },
  });
  if (response.statusCode !== 201) throw new Error(`token: ${response.statusCode} ${response.body}`);
  return response.json() as CreatedToken;
};

t.test('POST /auth/tokens answers 201 with the token and its secret, stored only as a keyed hash', async (t) => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/tokens',
    headers: bearer(owner.token),
    payload: { name: '  Deploys  ' },
  });
  t.equal(response.statusCode, 201);
  const body = response.json() as CreatedToken;
  t.strictSame(Object.keys(body).sort(), ['secret', 'token']);
  t.strictSame(body.token, { id: body.token.id, name: 'Deploys', createdAt: body.token.createdAt, lastUsedAt: null });
  t.match(body.token.id, UUID);
  t.match(body.secret, /^wpt_[A-Za-z0-9_-]{43,}$/);

  const [row] = await sql`select token_hash, user_id from personal_access_tokens where id = ${body.token.id}`;
  t.equal(row?.user_id, owner.user.id);
  const pepper = ctx.config.apiKeyPepper;
  if (!pepper) throw new Error('test config has no pepper');
  t.equal(row?.token_hash, keyedHash(pepper, body.secret), 'the keyed hash, never the token');
  t.notOk(JSON.stringify(await sql`select * from personal_access_tokens`).includes(body.secret));

  const list = await app.inject({ method: 'GET', url: '/api/v1/auth/tokens', headers: bearer(owner.token) });
  t.equal(list.statusCode, 200);
  t.strictSame((list.json() as { tokens: PublicToken[] }).tokens, [body.token], 'listed without its secret');
});

t.test('bad input: a missing or blank name, or a wrong type, changes nothing', async (t) => {
  const before = Number((await sql`select count(*) from personal_access_tokens`)[0]?.count);
  for (const [payload, code] of [
    [{}, 'MISSING_FIELDS'],
    [{ name: '' }, 'MISSING_FIELDS'],
    [{ name: '   ' }, 'MISSING_FIELDS'],
    [{ name: 42 }, 'INVALID_INPUT'],
    [{ name: 'x'.repeat(201) }, 'INVALID_INPUT'],
  ] as const) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/tokens',
      headers: bearer(owner.token),
      payload,
    });
    assertError(t, response, code);
  }
  t.equal(Number((await sql`select count(*) from personal_access_tokens`)[0]?.count), before);
});

t.test('a token acts as its user on /apps/**, and records its use', async (t) => {
  const { token, secret } = await createToken(owner.token);
  const apps = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(secret) });
  t.equal(apps.statusCode, 200);
  t.strictSame(
    (apps.json() as { apps: { id: string }[] }).apps.map((found) => found.id),
    [ownerApp.id],
  );
  const key = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${ownerApp.id}/keys`,
    headers: bearer(secret),
    payload: { scope: 'notify', name: 'made by CI' },
  });
  t.equal(key.statusCode, 201, 'a write too');
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(secret),
    payload: { name: 'By CI' },
  });
  assertError(t, created, 'PLAN_LIMIT_EXCEEDED', { publicUrl: ctx.config.publicUrl });

  const log = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${ownerApp.id}/audit-log`,
    headers: bearer(secret),
  });
  const [latest] = (log.json() as { entries: { action: string; actor: unknown }[] }).entries;
  t.equal(latest?.action, 'key.created');
  t.strictSame(latest?.actor, { type: 'user', id: owner.user.id, email: owner.email }, 'audited as its user');

  await waitFor(async () => {
    const [row] = await sql`select last_used_at from personal_access_tokens where id = ${token.id}`;
    return row?.last_used_at !== null;
  }, 'the use of the token recorded');
  const list = await app.inject({ method: 'GET', url: '/api/v1/auth/tokens', headers: bearer(owner.token) });
  const listed = (list.json() as { tokens: PublicToken[] }).tokens.find((found) => found.id === token.id);
  t.ok(listed?.lastUsedAt && Math.abs(Date.parse(listed.lastUsedAt) - Date.now()) < 60_000, 'lastUsedAt is now');

  const stranger = await registerUser(app);
  const strangerApp = await createApp(app, stranger.token);
  const foreign = await app.inject({ method: 'GET', url: `/api/v1/apps/${strangerApp.id}`, headers: bearer(secret) });
  assertError(t, foreign, 'NOT_FOUND');
});

t.test('a token never reaches /auth/** or the API-key routes', async (t) => {
  const { secret } = await createToken(owner.token);
  const tries = [
    { method: 'GET', url: '/api/v1/auth/me' },
    { method: 'GET', url: '/api/v1/auth/tokens' },
    { method: 'POST', url: '/api/v1/auth/tokens', payload: { name: 'escalation' } },
    { method: 'GET', url: '/api/v1/auth/sessions' },
    { method: 'GET', url: '/api/v1/auth/audit-log' },
    { method: 'POST', url: '/api/v1/auth/logout' },
    { method: 'GET', url: '/api/v1/operator/tenants' },
  ] as const;
  for (const request of tries) {
    const response = await app.inject({ ...request, headers: bearer(secret) });
    assertError(t, response, 'INVALID_SESSION');
  }
  const notify = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(secret),
    payload: { title: 'x', body: 'y' },
  });
  assertError(t, notify, 'INVALID_API_KEY');
});

t.test('a revoked token is refused at once on a second API instance', async (t) => {
  const second = await buildApp(ctx.config, { logger: false });
  t.teardown(() => second.close());
  const { token, secret } = await createToken(owner.token);
  const onSecond = () => second.inject({ method: 'GET', url: `/api/v1/apps/${ownerApp.id}`, headers: bearer(secret) });
  t.equal((await onSecond()).statusCode, 200, 'works on the other instance');

  const revoked = await app.inject({
    method: 'DELETE',
    url: `/api/v1/auth/tokens/${token.id}`,
    headers: bearer(owner.token),
  });
  t.equal(revoked.statusCode, 204);
  assertError(t, await onSecond(), 'INVALID_SESSION');

  const again = await app.inject({
    method: 'DELETE',
    url: `/api/v1/auth/tokens/${token.id}`,
    headers: bearer(owner.token),
  });
  assertError(t, again, 'NOT_FOUND');

  const log = await app.inject({ method: 'GET', url: '/api/v1/auth/audit-log', headers: bearer(owner.token) });
  const [latest, previous] = (log.json() as { entries: { action: string; target: unknown }[] }).entries;
  t.equal(latest?.action, 'token.revoked');
  t.strictSame(latest?.target, { type: 'token', id: token.id });
  t.equal(previous?.action, 'token.created');
});

t.test("nobody revokes or lists another user's tokens; a suspended account's tokens fail", async (t) => {
  const { token, secret } = await createToken(owner.token);
  const stranger = await registerUser(app);
  for (const id of [token.id, 'not-a-uuid']) {
    const response = await app.inject({
      method: 'DELETE',
      url: `/api/v1/auth/tokens/${id}`,
      headers: bearer(stranger.token),
    });
    assertError(t, response, 'NOT_FOUND');
  }
  const list = await app.inject({ method: 'GET', url: '/api/v1/auth/tokens', headers: bearer(stranger.token) });
  t.strictSame(list.json(), { tokens: [] });

  await sql`update users set suspended_at = now() where id = ${owner.user.id}`;
  const suspended = await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(secret) });
  assertError(t, suspended, 'INVALID_SESSION');
  await sql`update users set suspended_at = null where id = ${owner.user.id}`;
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(secret) })).statusCode, 200);
});
