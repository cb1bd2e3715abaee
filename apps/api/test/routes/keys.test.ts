import { keyedHash } from '@webpush/secrets';
import { waitFor } from '@webpush/testing';
import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createApp, registerUser } from '../helper.js';

const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

// One owner and one app serve the whole file: keys are cheap, registrations are not.
const owner = await registerUser(app);
const ownerApp = await createApp(app, owner.token);
const keysUrl = `/api/v1/apps/${ownerApp.id}/keys`;

interface PublicKey {
  id: string;
  name: string;
  scope: string;
  createdAt: string;
}
interface CreatedKey {
  key: PublicKey;
  secret: string;
}

const postKey = (payload: unknown) =>
  app.inject({ method: 'POST', url: keysUrl, headers: bearer(owner.token), payload: payload as object });
const vapidKeyWith = (secret: string) =>
  app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(secret) });

t.test('POST /apps/:appId/keys answers 201 with the key and its secret, shown once', async (t) => {
  const before = Date.now();
  const response = await postKey({ scope: 'notify', name: 'Backend' });
  t.equal(response.statusCode, 201);
  const body = response.json() as CreatedKey;
  t.strictSame(Object.keys(body).sort(), ['key', 'secret']);
  t.strictSame(body.key, {
    id: body.key.id,
    name: 'Backend',
    scope: 'notify',
    createdAt: body.key.createdAt,
    prefix: body.secret.slice(0, 10),
    lastUsedAt: null,
  });
  t.match(body.key.id, UUID);
  const created = Date.parse(body.key.createdAt);
  t.ok(created >= before - 1000 && created <= Date.now() + 1000, 'createdAt is now');

  // At least 256 bits of randomness after the prefix: 43 base64url characters.
  t.match(body.secret, /^wpk_[A-Za-z0-9_-]{43,}$/);
  t.ok(Buffer.from(body.secret.slice(4), 'base64url').length >= 32, '≥ 32 random bytes');

  const [row] = await sql`select app_id, name, scope, key_hash from api_keys where id = ${body.key.id}`;
  t.equal(row?.app_id, ownerApp.id);
  t.equal(row?.scope, 'notify');
  t.equal(row?.name, 'Backend');
  t.not(row?.key_hash, body.secret, 'the secret is not stored');
  const pepper = ctx.config.apiKeyPepper;
  if (!pepper) throw new Error('test config has no pepper');
  t.equal(row?.key_hash, keyedHash(pepper, body.secret), 'only its keyed hash is');

  t.equal((await vapidKeyWith(body.secret)).statusCode, 200, 'the secret authenticates');
});

t.test(
  'a key shows a prefix of its secret, never more, and when it was last used, written at most once a minute',
  async (t) => {
    const { key, secret } = (await postKey({ scope: 'notify', name: 'Tracked' })).json() as CreatedKey & {
      key: { prefix: string };
    };
    t.match(key.prefix, /^wpk_[A-Za-z0-9_-]{6}$/);
    t.ok(secret.startsWith(key.prefix), 'the prefix is the start of the secret');
    const [stored] = await sql`select display_prefix from api_keys where id = ${key.id}`;
    t.equal(stored?.display_prefix, key.prefix, 'only the prefix is stored beside the hash');

    const listed = async () => {
      const answer = await app.inject({ method: 'GET', url: keysUrl, headers: bearer(owner.token) });
      const keys = (answer.json() as { keys: { id: string; prefix: string; lastUsedAt: string | null }[] }).keys;
      const found = keys.find((candidate) => candidate.id === key.id);
      if (!found) throw new Error('the key is not listed');
      return found;
    };
    t.equal((await listed()).lastUsedAt, null, 'never used');
    t.notMatch(JSON.stringify(await listed()), secret, 'the list never carries the secret');

    // The use is recorded beside the request, not before its answer: wait for it.
    const recorded = async (after: number) => {
      let lastUsedAt: string | null = null;
      await waitFor(async () => {
        lastUsedAt = (await listed()).lastUsedAt;
        return lastUsedAt !== null && Date.parse(lastUsedAt) >= after;
      }, 'the use is recorded');
      return lastUsedAt as string | null;
    };
    const before = Date.now();
    t.equal((await vapidKeyWith(secret)).statusCode, 200);
    const first = await recorded(before - 1000);
    t.ok(first !== null && Math.abs(Date.parse(first) - before) < 60_000, 'used just now');

    // Within the minute, further use writes nothing: the stored time stays the first one.
    for (let i = 0; i < 3; i++) t.equal((await vapidKeyWith(secret)).statusCode, 200);
    t.equal((await listed()).lastUsedAt, first, 'not rewritten within the minute');

    // An hour-old time is replaced by the next use.
    await sql`update api_keys set last_used_at = now() - interval '1 hour' where id = ${key.id}`;
    t.equal((await vapidKeyWith(secret)).statusCode, 200);
    const later = await recorded(before - 1000);
    t.ok(later !== null && Date.parse(later) >= before - 1000, 'written again after a minute');
  },
);

t.test('every scope can be created; the name is optional', async (t) => {
  const secrets = new Set<string>();
  for (const scope of ['subscribe_only', 'notify', 'full']) {
    const response = await postKey({ scope });
    t.equal(response.statusCode, 201, scope);
    const body = response.json() as CreatedKey;
    t.equal(body.key.scope, scope);
    t.equal(body.key.name, '', 'no name given');
    secrets.add(body.secret);
  }
  t.equal(secrets.size, 3, 'every secret is different');
  const named = (await postKey({ scope: 'full', name: '  Trimmed  ' })).json() as CreatedKey;
  t.equal(named.key.name, 'Trimmed');
});

t.test('GET /apps/:appId/keys lists the keys without their secrets', async (t) => {
  const other = await registerUser(app);
  const otherApp = await createApp(app, other.token);
  const emptyList = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${otherApp.id}/keys`,
    headers: bearer(other.token),
  });
  t.equal(emptyList.statusCode, 200);
  t.strictSame(emptyList.json(), { keys: [] });

  const created: CreatedKey[] = [];
  for (const scope of ['full', 'subscribe_only']) {
    const response = await app.inject({
      method: 'POST',
      url: `/api/v1/apps/${otherApp.id}/keys`,
      headers: bearer(other.token),
      payload: { scope, name: `key ${scope}` },
    });
    created.push(response.json() as CreatedKey);
  }
  const response = await app.inject({
    method: 'GET',
    url: `/api/v1/apps/${otherApp.id}/keys`,
    headers: bearer(other.token),
  });
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { keys: created.map((entry) => entry.key) }, 'oldest first, public fields only');
  for (const entry of created) t.notOk(response.body.includes(entry.secret), 'no secret in the list');
  const hashes = await sql`select key_hash from api_keys where app_id = ${otherApp.id}`;
  for (const { key_hash } of hashes) t.notOk(response.body.includes(String(key_hash)), 'no hash in the list');
});

t.test('DELETE /apps/:appId/keys/:keyId answers 204; the key is INVALID_API_KEY from then on', async (t) => {
  const doomed = (await postKey({ scope: 'full' })).json() as CreatedKey;
  const survivor = (await postKey({ scope: 'full' })).json() as CreatedKey;
  t.equal((await vapidKeyWith(doomed.secret)).statusCode, 200);

  const response = await app.inject({
    method: 'DELETE',
    url: `${keysUrl}/${doomed.key.id}`,
    headers: bearer(owner.token),
  });
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');
  assertError(t, await vapidKeyWith(doomed.secret), 'INVALID_API_KEY');
  t.equal((await vapidKeyWith(survivor.secret)).statusCode, 200, 'other keys keep working');
  t.equal((await sql`select count(*)::int as n from api_keys where id = ${doomed.key.id}`)[0]?.n, 0);

  const list = (await app.inject({ method: 'GET', url: keysUrl, headers: bearer(owner.token) })).json() as {
    keys: PublicKey[];
  };
  t.notOk(
    list.keys.some((key) => key.id === doomed.key.id),
    'gone from the list',
  );
  t.ok(list.keys.some((key) => key.id === survivor.key.id));

  const again = await app.inject({
    method: 'DELETE',
    url: `${keysUrl}/${doomed.key.id}`,
    headers: bearer(owner.token),
  });
  assertError(t, again, 'NOT_FOUND');
  const unknown = await app.inject({
    method: 'DELETE',
    url: `${keysUrl}/00000000-0000-0000-0000-000000000000`,
    headers: bearer(owner.token),
  });
  assertError(t, unknown, 'NOT_FOUND');
  const malformed = await app.inject({ method: 'DELETE', url: `${keysUrl}/not-a-uuid`, headers: bearer(owner.token) });
  assertError(t, malformed, 'NOT_FOUND');
});

t.test('an unknown scope is 400 INVALID_SCOPE', async (t) => {
  const [before] = await sql`select count(*)::int as n from api_keys`;
  for (const scope of ['admin', 'FULL', 'notify ', 123, true, null, ['full'], { scope: 'full' }]) {
    assertError(t, await postKey({ scope }), 'INVALID_SCOPE');
  }
  const [after] = await sql`select count(*)::int as n from api_keys`;
  t.equal(after?.n, before?.n, 'no key was created');
});

t.test('a missing scope is 400 MISSING_FIELDS; a bad name is INVALID_INPUT', async (t) => {
  assertError(t, await postKey({}), 'MISSING_FIELDS');
  assertError(t, await postKey({ name: 'no scope' }), 'MISSING_FIELDS');
  assertError(t, await app.inject({ method: 'POST', url: keysUrl, headers: bearer(owner.token) }), 'MISSING_FIELDS');
  assertError(t, await postKey({ scope: 'full', name: 42 }), 'INVALID_INPUT');
  assertError(t, await postKey({ scope: 'full', name: 'x'.repeat(201) }), 'INVALID_INPUT');
});

t.test('key routes take a session: an API key or nothing is 401', async (t) => {
  const key = (await postKey({ scope: 'full' })).json() as CreatedKey;
  const asKey = bearer(key.secret);
  assertError(t, await app.inject({ method: 'GET', url: keysUrl, headers: asKey }), 'INVALID_SESSION');
  assertError(
    t,
    await app.inject({ method: 'POST', url: keysUrl, headers: asKey, payload: { scope: 'full' } }),
    'INVALID_SESSION',
  );
  assertError(
    t,
    await app.inject({ method: 'DELETE', url: `${keysUrl}/${key.key.id}`, headers: asKey }),
    'INVALID_SESSION',
  );
  assertError(t, await app.inject({ method: 'GET', url: keysUrl }), 'UNAUTHORIZED');
  t.equal((await vapidKeyWith(key.secret)).statusCode, 200, 'the key was not revoked');
});
