import { randomBytes } from 'node:crypto';
import { deleteApiKey, deleteApp, findApp, findNotification, findUserById, listApiKeys } from '@webpush/db';
import { startFakePushService } from '@webpush/testing';
import type { FastifyError, FastifyRequest } from 'fastify';
import t from 'tap';
import { storageRefusal, toAppError } from '../src/plugins/app/error-handler.js';
import { findUnstorableString } from '../src/plugins/app/storable-input.js';
import { assertError } from './assertions.js';
import { bearer, buildTestApp, ownerWithKey, uniqueEmail } from './helper.js';

/**
 * Input PostgreSQL cannot store is 400 INVALID_INPUT on every route, decided at one
 * boundary (the storable-input hook, the JSON parser for invalid UTF-8) with the PostgreSQL error
 * classes mapped behind it; malformed ids find nothing in the repositories.
 */
const push = await startFakePushService();
t.teardown(() => push.close());
const ctx = await buildTestApp(t, {
  PUSH_SERVICE_HOSTS: push.hostRule,
  RATE_LIMIT_API_KEY_MAX: '10000',
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_LOGIN_MAX: '1000',
});
const { app } = ctx;
const sql = ctx.database.sql;
const owner = await ownerWithKey(app, 'full');
const JSON_TYPE = { 'content-type': 'application/json' };
const count = async (table: string) => Number((await sql`select count(*)::int as n from ${sql(table)}`)[0]?.n);

t.test('NUL and lone surrogates are 400 INVALID_INPUT on every route that stores or looks up text', async (t) => {
  const users = await count('users');
  const apps = await count('apps');
  const cases: [string, string, Record<string, string>, string][] = [
    ['POST', '/api/v1/auth/register', {}, `{"email":"${uniqueEmail()}","password":"correct\\u0000horse"}`],
    ['POST', '/api/v1/auth/register', {}, '{"email":"a\\u0000b@example.com","password":"correct horse battery"}'],
    ['POST', '/api/v1/auth/login', {}, '{"email":"a\\u0000b@example.com","password":"correct horse battery"}'],
    ['POST', '/api/v1/apps', bearer(owner.user.token), '{"name":"a\\u0000b"}'],
    ['POST', '/api/v1/apps', bearer(owner.user.token), '{"name":"\\ud800"}'],
    ['POST', `/api/v1/apps/${owner.app.id}/keys`, bearer(owner.user.token), '{"scope":"full","name":"x\\u0000"}'],
    ['POST', '/api/v1/notify', bearer(owner.secret), '{"title":"a\\u0000b","body":"x"}'],
    ['POST', '/api/v1/notify', bearer(owner.secret), '{"title":"a","body":"\\udc00"}'],
    ['DELETE', '/api/v1/subscribe', bearer(owner.secret), `{"endpoint":"${push.origin}/push/x\\u0000"}`],
  ];
  for (const [method, url, headers, payload] of cases) {
    const response = await app.inject({
      method: method as 'POST',
      url,
      headers: { ...headers, ...JSON_TYPE },
      payload,
    });
    assertError(t, response, 'INVALID_INPUT');
  }
  t.equal(await count('users'), users, 'no user was stored');
  t.equal(await count('apps'), apps, 'no app was stored');
  t.equal(await count('notifications'), 0, 'nothing was queued');

  const inQuery = await app.inject({ method: 'GET', url: '/api/v1/auth/github/callback?code=x&state=%00' });
  assertError(t, inQuery, 'INVALID_INPUT', {}); // in the query string too
  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/apps/%00', headers: bearer(owner.user.token) }),
    'INVALID_INPUT',
  );
});

t.test('the contract order holds: a missing field is MISSING_FIELDS even beside a NUL', async (t) => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: { ...bearer(owner.secret), 'content-type': 'application/json' },
    payload: '{"title":"a\\u0000b"}',
  });
  assertError(t, response, 'MISSING_FIELDS');
});

t.test('a body that is not valid UTF-8 is 400 INVALID_INPUT, not silently U+FFFD', async (t) => {
  for (const bytes of [[0x80], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xff]]) {
    const payload = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('"}')]);
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/apps',
      headers: { ...bearer(owner.user.token), ...JSON_TYPE },
      payload,
    });
    assertError(t, response, 'INVALID_INPUT');
  }
});

t.test('what only PostgreSQL can tell (a value too long for its index) is mapped to 400 INVALID_INPUT', async (t) => {
  // ~1,950 characters (within the contract's 2,048) but ~5,800 bytes that do not compress: over a
  // btree entry's limit, which PostgreSQL reports as 54000 program_limit_exceeded.
  const subscription = push.subscribe();
  const random = [...randomBytes(3_900)].map(
    (byte, index, bytes) => 0x4e00 + byte * 64 + ((bytes[index + 1] ?? 0) % 64),
  );
  const endpoint = `${subscription.endpoint}/${String.fromCodePoint(...random.filter((_, index) => index % 2 === 0))}`;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
  });
  assertError(t, response, 'INVALID_INPUT');
  t.equal(await count('subscriptions'), 0, 'nothing stored');
});

t.test('storageRefusal recognises the PostgreSQL classes, also wrapped by drizzle, and nothing else', async (t) => {
  const postgresError = (code: string) => Object.assign(new Error('refused'), { name: 'PostgresError', code });
  t.equal(storageRefusal(postgresError('22021')), 'character_not_in_repertoire');
  t.equal(storageRefusal(postgresError('22P05')), 'untranslatable_character');
  t.equal(storageRefusal(postgresError('54000')), 'program_limit_exceeded');
  t.equal(storageRefusal(postgresError('22003')), 'numeric_value_out_of_range');
  t.equal(storageRefusal(postgresError('22P02')), 'invalid_text_representation');
  t.equal(storageRefusal(new Error('Failed query', { cause: postgresError('22021') })), 'character_not_in_repertoire');
  t.equal(storageRefusal(postgresError('23505')), null, 'a unique violation is not the client’s bad value');
  t.equal(storageRefusal(postgresError('08006')), null, 'a lost connection is a 500');
  t.equal(storageRefusal(Object.assign(new Error('x'), { code: '22021' })), null, 'only PostgreSQL’s own errors');
  const request = { body: undefined } as FastifyRequest;
  t.equal(toAppError(postgresError('22021') as FastifyError, request)?.code, 'INVALID_INPUT', 'answered 400');
  t.equal(toAppError(postgresError('23505') as FastifyError, request), null, 'the rest stays a 500');
});

t.test('findUnstorableString looks into keys, arrays and deep nesting', async (t) => {
  let deep: unknown = 'fine';
  for (let i = 0; i < 20_000; i++) deep = [deep];
  t.equal(findUnstorableString(deep), false, 'no stack overflow');
  t.equal(findUnstorableString({ ok: ['x', { 'k\u0000': 1 }] }), true, 'a NUL in a key');
  t.equal(findUnstorableString({ ok: ['x', '\ud83d\ude00'] }), false, 'a surrogate pair is fine');
  t.equal(findUnstorableString(['\ud83d']), true, 'a lone high surrogate');
  t.equal(findUnstorableString(undefined), false);
});

t.test('repositories find nothing for a malformed id instead of letting PostgreSQL refuse it', async (t) => {
  const db = ctx.database.db;
  const userId = owner.user.user.id;
  for (const bad of ['not-a-uuid', '', '\u0000', `${owner.app.id}x`, 'x'.repeat(10_000)]) {
    t.equal(await findApp(db, userId, bad), null, `findApp(${JSON.stringify(bad.slice(0, 12))})`);
    t.equal(await findApp(db, bad, owner.app.id), null, 'a malformed owner id too');
    t.equal(await deleteApp(db, userId, bad), false);
    t.strictSame(await listApiKeys(db, userId, bad), []);
    t.equal(await deleteApiKey(db, userId, owner.app.id, bad, null), false);
    t.equal(await findNotification(db, owner.app.id, bad), null);
    t.equal(await findUserById(db, bad), null);
  }
  t.ok(await findApp(db, userId, owner.app.id.toUpperCase()), 'an upper-case uuid is still a uuid');
  for (const url of [`/api/v1/apps/not-a-uuid`, `/api/v1/apps/${owner.app.id}/keys/nope`, '/api/v1/apps/x/keys']) {
    assertError(t, await app.inject({ method: 'DELETE', url, headers: bearer(owner.user.token) }), 'NOT_FOUND');
  }
  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/notifications/1', headers: bearer(owner.secret) }),
    'NOT_FOUND',
  );
});
