import { randomUUID } from 'node:crypto';
import { deleteExpiredAuditEntries, recordAudit } from '@webpush/db';
import t from 'tap';
import { assertError, UUID } from '../assertions.js';
import { bearer, buildTestApp, createApp, registerUser } from '../helper.js';

// The audit log: written in the transaction of the change it records, read newest first by the
// app's owner (and only them), append-only, kept at least 365 days.
const ctx = await buildTestApp(t, { RATE_LIMIT_LOGIN_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

const owner = await registerUser(app);
const ownerApp = await createApp(app, owner.token);
const appUrl = `/api/v1/apps/${ownerApp.id}`;

interface Entry {
  id: string;
  at: string;
  actor: { type: string; id: string; email?: string };
  action: string;
  target: { type: string; id: string | null } | null;
  details: Record<string, unknown>;
  ip: string | null;
}
interface Log {
  entries: Entry[];
  nextCursor: string | null;
}

const readLog = async (url: string, token: string): Promise<Log> => {
  const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json() as Log;
};
const entryCount = async (appId: string) =>
  Number((await sql`select count(*) from audit_log where app_id = ${appId}`)[0]?.count);

t.test("every change the contract lists is in the app's log, newest first, with no secret in it", async (t) => {
  const as = (method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, payload?: object) =>
    app.inject({ method, url: `${appUrl}${path}`, headers: bearer(owner.token), ...(payload ? { payload } : {}) });

  t.equal((await as('PATCH', '', { name: 'Renamed' })).statusCode, 200);
  const created = await as('POST', '/keys', { scope: 'notify', name: 'Backend' });
  t.equal(created.statusCode, 201);
  const key = created.json() as { key: { id: string }; secret: string };
  t.equal((await as('DELETE', `/keys/${key.key.id}`)).statusCode, 204);
  t.equal((await as('POST', '/vapid-key/rotate')).statusCode, 200);
  const identity = await as('POST', '/identity-secret');
  t.equal(identity.statusCode, 201);
  const webhook = await as('PUT', '/webhook', { url: 'https://example.com/hook', events: ['notification.completed'] });
  t.equal(webhook.statusCode, 200, webhook.body);
  const rotated = await as('POST', '/webhook/rotate-secret');
  t.equal(rotated.statusCode, 200);
  t.equal((await as('DELETE', '/webhook')).statusCode, 204);

  const log = await readLog(`${appUrl}/audit-log`, owner.token);
  t.strictSame(
    log.entries.map((entry) => entry.action),
    [
      'webhook.deleted',
      'webhook.secret_rotated',
      'webhook.updated',
      'identity_secret.created',
      'vapid_key.rotated',
      'key.revoked',
      'key.created',
      'app.updated',
    ],
  );
  t.equal(log.nextCursor, null);
  for (const entry of log.entries) {
    t.match(entry.id, UUID);
    t.strictSame(Object.keys(entry).sort(), ['action', 'actor', 'at', 'details', 'id', 'ip', 'target']);
    t.strictSame(entry.actor, { type: 'user', id: owner.user.id, email: owner.email }, `${entry.action}: the actor`);
    t.equal(entry.ip, '127.0.0.1', `${entry.action}: the client's address`);
    t.ok(Math.abs(Date.parse(entry.at) - Date.now()) < 60_000, `${entry.action}: at is now`);
  }
  const revoked = log.entries.find((entry) => entry.action === 'key.revoked');
  t.strictSame(revoked?.target, { type: 'key', id: key.key.id });
  t.strictSame(revoked?.details, { name: 'Backend', scope: 'notify' });
  t.strictSame(log.entries.at(-1)?.details, { fields: ['name'] }, 'app.updated names the fields, not their values');

  const secrets = [
    key.secret,
    (identity.json() as { secret: string }).secret,
    (webhook.json() as { webhook: { secret: string } }).webhook.secret,
    (rotated.json() as { webhook: { secret: string } }).webhook.secret,
  ];
  const stored = JSON.stringify(await sql`select * from audit_log`);
  for (const secret of secrets) {
    t.notOk(JSON.stringify(log.entries).includes(secret), 'no secret in the answer');
    t.notOk(stored.includes(secret), 'no secret in the table');
  }
});

t.test('a change that rolls back leaves no entry', async (t) => {
  const before = await entryCount(ownerApp.id);
  // Refused inside its statement: a declarative app needs a default URL.
  const refused = await app.inject({
    method: 'PATCH',
    url: appUrl,
    headers: bearer(owner.token),
    payload: { pushFormat: 'declarative' },
  });
  assertError(t, refused, 'MISSING_FIELDS');
  t.equal(await entryCount(ownerApp.id), before, 'a refused change records nothing');

  // The entry is a statement of the change's own transaction: when that transaction fails after it,
  // the entry goes with the change.
  await t.rejects(
    ctx.database.db.transaction(async (tx) => {
      await tx.execute(`update apps set name = 'Rolled back' where id = '${ownerApp.id}'`);
      await recordAudit(
        tx,
        { appId: ownerApp.id },
        { actor: { type: 'user', id: owner.user.id, email: owner.email }, ip: null, action: 'app.updated' },
      );
      throw new Error('the change fails after its entry');
    }),
  );
  t.equal(await entryCount(ownerApp.id), before, 'the rolled-back entry is not there');
  t.equal((await sql`select name from apps where id = ${ownerApp.id}`)[0]?.name, 'Renamed');
});

t.test("a stranger gets 404 on another's log, and an API key never reads it", async (t) => {
  const stranger = await registerUser(app);
  const response = await app.inject({ method: 'GET', url: `${appUrl}/audit-log`, headers: bearer(stranger.token) });
  assertError(t, response, 'NOT_FOUND');
  const malformed = await app.inject({
    method: 'GET',
    url: '/api/v1/apps/not-a-uuid/audit-log',
    headers: bearer(owner.token),
  });
  assertError(t, malformed, 'NOT_FOUND');
  const keyResponse = await app.inject({
    method: 'POST',
    url: `${appUrl}/keys`,
    headers: bearer(owner.token),
    payload: { scope: 'full' },
  });
  const { secret } = keyResponse.json() as { secret: string };
  const withKey = await app.inject({ method: 'GET', url: `${appUrl}/audit-log`, headers: bearer(secret) });
  assertError(t, withKey, 'INVALID_SESSION');
  const none = await app.inject({ method: 'GET', url: `${appUrl}/audit-log` });
  assertError(t, none, 'UNAUTHORIZED');
});

t.test('pages with limit and cursor cover the log once; a bad cursor or limit is INVALID_INPUT', async (t) => {
  const all = await readLog(`${appUrl}/audit-log?limit=100`, owner.token);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Log = await readLog(
      `${appUrl}/audit-log?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      owner.token,
    );
    t.ok(page.entries.length <= 3);
    seen.push(...page.entries.map((entry) => entry.id));
    cursor = page.nextCursor;
  } while (cursor);
  t.strictSame(
    seen,
    all.entries.map((entry) => entry.id),
  );
  for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=nonsense']) {
    const response = await app.inject({
      method: 'GET',
      url: `${appUrl}/audit-log?${query}`,
      headers: bearer(owner.token),
    });
    assertError(t, response, 'INVALID_INPUT');
  }
});

t.test('filters: one action, one actor, both; a malformed action is INVALID_INPUT', async (t) => {
  const all = (await readLog(`${appUrl}/audit-log?limit=100`, owner.token)).entries;
  const [action] = all.map((entry) => entry.action);
  t.ok(action, 'the log has entries to filter');
  const byAction = (await readLog(`${appUrl}/audit-log?limit=100&action=${action}`, owner.token)).entries;
  t.strictSame(
    byAction.map((entry) => entry.id),
    all.filter((entry) => entry.action === action).map((entry) => entry.id),
    `every ${action} entry, and only those`,
  );
  const actor = owner.user.id;
  const byActor = (await readLog(`${appUrl}/audit-log?limit=100&actor=${actor}`, owner.token)).entries;
  t.ok(byActor.length > 0);
  t.ok(
    byActor.every((entry) => entry.actor.id === actor),
    'only the actor’s entries',
  );
  t.equal(byActor.length, all.filter((entry) => entry.actor.id === actor).length);
  const both = (await readLog(`${appUrl}/audit-log?limit=100&action=${action}&actor=${randomUUID()}`, owner.token))
    .entries;
  t.strictSame(both, [], 'an actor who did nothing here: no entry');
  const own = (await readLog('/api/v1/auth/audit-log?limit=100&action=session.created', owner.token)).entries;
  t.ok(own.length > 0 && own.every((entry) => entry.action === 'session.created'), 'the account log filters too');
  for (const query of ['action=DROP%20TABLE', 'action=key', `action=${'a.'.repeat(40)}b`, `actor=${'x'.repeat(65)}`]) {
    const response = await app.inject({
      method: 'GET',
      url: `${appUrl}/audit-log?${query}`,
      headers: bearer(owner.token),
    });
    assertError(t, response, 'INVALID_INPUT');
  }
});

t.test('entries cannot be changed, and are deleted only once older than 365 days', async (t) => {
  await t.rejects(
    sql`update audit_log set action = 'forged' where app_id = ${ownerApp.id}`,
    /append-only|cannot be changed/,
  );
  await t.rejects(sql`delete from audit_log where app_id = ${ownerApp.id}`, /cannot be changed or deleted/);

  // An app deleted long ago: the log names it by id, with no foreign key to what it records.
  const other = { id: randomUUID() };
  const insertAged = (days: number) =>
    sql`insert into audit_log (at, app_id, actor_type, actor_id, action)
      values (now() - make_interval(days => ${days}), ${other.id}, 'operator', 'test', 'app.updated')`;
  await insertAged(400);
  await insertAged(300);
  // Asked for 30 days (a short notification retention): still nothing younger than 365 days goes.
  const removed = await deleteExpiredAuditEntries(ctx.database.db, 30, 10);
  t.equal(removed, 1);
  const left = await sql`select extract(day from now() - at)::int as days from audit_log where app_id = ${other.id}`;
  t.strictSame(
    left.map((row) => row.days),
    [300],
  );
});

t.test("the account's own log: sign-ins, password resets, tokens; nobody else's", async (t) => {
  const user = await registerUser(app);
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: user.email, password: user.password },
    headers: { 'user-agent': 'audit-test' },
  });
  t.equal(login.statusCode, 200);
  const session = (login.json() as { token: string }).token;

  const token = 'reset-token-for-the-audit-test';
  await sql`insert into account_tokens (user_id, purpose, token_hash, expires_at)
    values (${user.user.id}, 'reset_password', ${app.secrets.hash(token)}, now() + interval '1 hour')`;
  const reset = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/password-reset/confirm',
    payload: { token, password: 'another horse battery' },
  });
  t.equal(reset.statusCode, 200, reset.body);

  const again = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: user.email, password: 'another horse battery' },
  });
  const fresh = (again.json() as { token: string }).token;
  t.notOk(session === fresh);

  const log = await readLog('/api/v1/auth/audit-log', fresh);
  t.strictSame(
    log.entries.map((entry) => entry.action),
    ['session.created', 'password.reset', 'session.created', 'session.created'],
  );
  const [, resetEntry, signIn, registered] = log.entries;
  t.strictSame(resetEntry?.actor, { type: 'user', id: user.user.id, email: user.email });
  t.strictSame(signIn?.details, { method: 'password', userAgent: 'audit-test' });
  t.strictSame(registered?.details.method, 'register');
  t.notOk(JSON.stringify(log).includes(token), 'the reset token is not in the log');

  // The owner's log does not hold this user's entries.
  const ownerLog = await readLog('/api/v1/auth/audit-log?limit=100', owner.token);
  t.ok(ownerLog.entries.every((entry) => entry.actor.id === owner.user.id || entry.actor.type === 'operator'));
});

t.test("an operator's plan change and suspension are in the tenant's app log as operator", async (t) => {
  const operator = await registerUser(app);
  await sql`update users set role = 'operator' where id = ${operator.user.id}`;
  const tenant = await registerUser(app);
  const tenantApp = await createApp(app, tenant.token);

  const plan = await app.inject({
    method: 'PATCH',
    url: `/api/v1/operator/tenants/${tenant.user.id}/plan`,
    headers: bearer(operator.token),
    payload: { plan: 'pro' },
  });
  t.equal(plan.statusCode, 200, plan.body);
  for (const suspended of [true, false]) {
    const response = await app.inject({
      method: suspended ? 'PUT' : 'DELETE',
      url: `/api/v1/operator/tenants/${tenant.user.id}/suspension`,
      headers: bearer(operator.token),
    });
    t.equal(response.statusCode, 200);
  }

  const expected = ['account.resumed', 'account.suspended', 'account.plan_changed'];
  for (const url of [`/api/v1/apps/${tenantApp.id}/audit-log`, '/api/v1/auth/audit-log']) {
    const log = await readLog(url, tenant.token);
    const operatorEntries = log.entries.filter((entry) => entry.actor.type === 'operator');
    t.strictSame(
      operatorEntries.map((entry) => entry.action),
      expected,
      url,
    );
    for (const entry of operatorEntries) {
      t.strictSame(entry.actor, { type: 'operator', id: operator.user.id });
      t.strictSame(entry.target, { type: 'account', id: tenant.user.id });
    }
    t.strictSame(operatorEntries.at(-1)?.details, { plan: 'pro' });
  }
  const refused = await app.inject({
    method: 'PATCH',
    url: `/api/v1/operator/tenants/${tenant.user.id}/plan`,
    headers: bearer(operator.token),
    payload: { plan: 'gold' },
  });
  assertError(t, refused, 'INVALID_INPUT');
  t.equal(
    (await readLog('/api/v1/auth/audit-log', tenant.token)).entries.length,
    4,
    'a refused change records nothing',
  );
});
