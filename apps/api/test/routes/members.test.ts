import { type MailServer, type ReceivedMail, startMailServer } from '@webpush/testing';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { assertError, TEST_PUBLIC_URL, UUID } from '../assertions.js';
import { bearer, buildTestApp, createApp, registerUser, uniqueEmail } from '../helper.js';

// Teams: invitations by e-mail (single use, 7 days, keyed hashes), the members list, roles that
// change at once, the plan counted against the owner, and the audit entries of each change.
const mail: MailServer = await startMailServer();
t.teardown(() => mail.close());
const ctx = await buildTestApp(t, {
  ...mail.env,
  RATE_LIMIT_LOGIN_MAX: '10000',
  RATE_LIMIT_REGISTER_MAX: '10000',
  RATE_LIMIT_SESSION_WRITE_MAX: '10000',
});
const { app } = ctx;
const sql = ctx.database.sql;

const owner = await registerUser(app);
await sql`update users set plan = 'pro' where id = ${owner.user.id}`;
const ownerApp = await createApp(app, owner.token, 'Team blog');
const base = `/api/v1/apps/${ownerApp.id}`;

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const invite = (email: string, role: string, token = owner.token) =>
  call('POST', `${base}/members`, token, { email, role });
const accept = (token: string, invitationToken: string) =>
  call('POST', '/api/v1/invitations/accept', token, { token: invitationToken });
const verified = async (language: 'ja' | 'en' = 'ja', email = uniqueEmail('member')) => {
  const person = await registerUser(app, email);
  await sql`update users set email_verified = true, language = ${language} where id = ${person.user.id}`;
  return person;
};

const prefix = `${TEST_PUBLIC_URL}/accept-invitation?token=`;
const hasInvitation = (message: ReceivedMail) => message.text.includes(prefix);
async function invitationToken(address: string, count = 1): Promise<{ token: string; message: ReceivedMail }> {
  const message = await mail.waitFor(address, { count, matching: hasInvitation });
  const link = message.text.split(/\s+/).find((word) => word.startsWith(prefix)) ?? '';
  return { token: decodeURIComponent(link.slice(prefix.length)), message };
}
const auditActions = async () =>
  (await sql<{ action: string }[]>`select action from audit_log where app_id = ${ownerApp.id} order by at, id`).map(
    (row) => row.action,
  );

t.test(
  'an invitation e-mails a single-use link in the account’s language; accepting joins with the role',
  async (t) => {
    const member = await verified('en');
    const invited = await invite(member.email.toUpperCase(), 'editor');
    t.equal(invited.statusCode, 201, invited.body);
    const { invitation } = invited.json() as {
      invitation: { id: string; email: string; role: string; expiresAt: string };
    };
    t.match(invitation.id, UUID);
    t.equal(invitation.email, member.email, 'the address, normalised');
    t.equal(invitation.role, 'editor');
    const days = (Date.parse(invitation.expiresAt) - Date.now()) / 86_400_000;
    t.ok(days > 6.99 && days <= 7, `valid 7 days (${days})`);

    const { token, message } = await invitationToken(member.email);
    t.match(message.parsed.subject, /invited to Team blog/, 'in the English of the invitee’s account');
    t.match(message.text, new RegExp(`${owner.email} invited you`));
    const [row] = await sql<
      { token_hash: string }[]
    >`select token_hash from app_invitations where id = ${invitation.id}`;
    t.not(row?.token_hash, token, 'only the keyed hash is stored');
    t.notOk(
      JSON.stringify(await sql`select * from app_invitations`).includes(token),
      'the token is nowhere in the table',
    );

    const joined = await accept(member.token, token);
    t.equal(joined.statusCode, 200, joined.body);
    const { app: joinedApp } = joined.json() as { app: { id: string; role: string; name: string } };
    t.equal(joinedApp.id, ownerApp.id);
    t.equal(joinedApp.role, 'editor');
    assertError(t, await accept(member.token, token), 'INVALID_TOKEN', {});

    const list = await call('GET', '/api/v1/apps', member.token);
    t.strictSame(
      (list.json() as { apps: { id: string; role: string }[] }).apps.map((a) => [a.id, a.role]),
      [[ownerApp.id, 'editor']],
      'GET /apps lists the app the member belongs to, with their role',
    );
    const own = await call('GET', '/api/v1/apps', owner.token);
    t.equal((own.json() as { apps: { role: string }[] }).apps[0]?.role, 'owner');

    const people = await call('GET', `${base}/members`, member.token);
    t.equal(people.statusCode, 200);
    const body = people.json() as {
      members: { userId: string; email: string; role: string }[];
      invitations: unknown[];
    };
    t.strictSame(
      body.members.map((m) => [m.userId, m.email, m.role]),
      [
        [owner.user.id, owner.email, 'owner'],
        [member.user.id, member.email, 'editor'],
      ],
    );
    t.strictSame(body.invitations, [], 'an accepted invitation is no longer pending');
  },
);

t.test('invitations in Japanese, pending in the list, replaced when the address is invited again', async (t) => {
  const address = uniqueEmail('nobody-yet');
  await sql`update users set language = 'ja' where id = ${owner.user.id}`;
  t.equal((await invite(address, 'viewer')).statusCode, 201);
  const first = await invitationToken(address);
  t.match(first.message.parsed.subject, /招待/, 'no account yet: the inviter’s language (ja)');
  t.equal((await invite(address, 'admin')).statusCode, 201);
  const second = await invitationToken(address, 2);
  const pending = (await call('GET', `${base}/members`, owner.token)).json() as {
    invitations: { email: string; role: string }[];
  };
  t.strictSame(
    pending.invitations.filter((i) => i.email === address).map((i) => i.role),
    ['admin'],
    'the newer invitation replaces the older',
  );
  const person = await verified('ja', address);
  assertError(t, await accept(person.token, first.token), 'INVALID_TOKEN');
  t.equal((await accept(person.token, second.token)).statusCode, 200);
});

t.test('bad input: nothing changes, and each gets its code', async (t) => {
  const before = await auditActions();
  assertError(t, await invite(uniqueEmail(), 'owner'), 'INVALID_INPUT');
  assertError(t, await invite(uniqueEmail(), 'superuser'), 'INVALID_INPUT');
  assertError(t, await call('POST', `${base}/members`, owner.token, { email: uniqueEmail() }), 'MISSING_FIELDS');
  assertError(t, await invite('not-an-address', 'viewer'), 'INVALID_EMAIL');
  const already = await invite(owner.email, 'viewer');
  assertError(t, already, 'INVALID_INPUT', {
    message: 'このメールアドレスの方は、すでにこのアプリのオーナーかメンバーです',
  });
  t.strictSame(await auditActions(), before, 'no entry for a refused invitation');

  const member = await verified();
  await sql`insert into app_members (app_id, user_id, role) values (${ownerApp.id}, ${member.user.id}, 'viewer')`;
  assertError(t, await invite(member.email, 'admin'), 'INVALID_INPUT', {
    message: 'このメールアドレスの方は、すでにこのアプリのオーナーかメンバーです',
  });
  assertError(t, await accept(member.token, 'wpi_unknown'), 'INVALID_TOKEN');
  assertError(
    t,
    await call('PATCH', `${base}/members/${member.user.id}`, owner.token, { role: 'owner' }),
    'INVALID_INPUT',
  );
  assertError(t, await call('PATCH', `${base}/members/${owner.user.id}`, owner.token, { role: 'viewer' }), 'NOT_FOUND');
});

t.test('the account must be verified and be the invited address, else 403 and the link still works', async (t) => {
  const address = uniqueEmail('careful');
  t.equal((await invite(address, 'viewer')).statusCode, 201);
  const { token } = await invitationToken(address);

  const other = await verified();
  assertError(t, await accept(other.token, token), 'FORBIDDEN');
  const unverified = await registerUser(app, address);
  assertError(t, await accept(unverified.token, token), 'FORBIDDEN');
  const [row] = await sql`select used_at from app_invitations where email = ${address}`;
  t.equal(row?.used_at, null, 'the invitation is not spent');
  assertError(t, await call('GET', base, unverified.token), 'NOT_FOUND');

  await sql`update users set email_verified = true where id = ${unverified.user.id}`;
  t.equal((await accept(unverified.token, token)).statusCode, 200);
});

t.test('an expired invitation is INVALID_TOKEN', async (t) => {
  const address = uniqueEmail('late');
  t.equal((await invite(address, 'viewer')).statusCode, 201);
  const { token } = await invitationToken(address);
  await sql`update app_invitations set expires_at = now() - interval '1 second' where email = ${address}`;
  const person = await verified('ja', address);
  assertError(t, await accept(person.token, token), 'INVALID_TOKEN');
});

t.test('a role change or a removal holds at once on every API instance; each is audited', async (t) => {
  const second = await buildApp(ctx.config);
  t.teardown(() => second.close());
  const member = await verified();
  await sql`insert into app_members (app_id, user_id, role) values (${ownerApp.id}, ${member.user.id}, 'admin')`;
  const rename = () =>
    second.inject({ method: 'PATCH', url: base, headers: bearer(member.token), payload: { name: 'Team blog' } });
  t.equal((await rename()).statusCode, 200, 'an admin changes settings on the other instance');

  const changed = await call('PATCH', `${base}/members/${member.user.id}`, owner.token, { role: 'viewer' });
  t.equal(changed.statusCode, 200);
  t.strictSame((changed.json() as { member: { role: string; email: string } }).member.role, 'viewer');
  assertError(t, await rename(), 'FORBIDDEN');

  t.equal((await call('DELETE', `${base}/members/${member.user.id}`, owner.token)).statusCode, 204);
  assertError(t, await second.inject({ method: 'GET', url: base, headers: bearer(member.token) }), 'NOT_FOUND', {});
  assertError(t, await call('DELETE', `${base}/members/${member.user.id}`, owner.token), 'NOT_FOUND');

  const entries = await sql<
    { action: string; target_id: string; details: Record<string, unknown>; actor_id: string }[]
  >`
    select action, target_id, details, actor_id from audit_log
    where app_id = ${ownerApp.id} and target_id = ${member.user.id} order by at, id`;
  t.strictSame(
    entries.map((e) => [e.action, e.details, e.actor_id]),
    [
      ['member.role_changed', { from: 'admin', role: 'viewer' }, owner.user.id],
      ['member.removed', { role: 'viewer' }, owner.user.id],
    ],
  );
  const invited = await sql`select details from audit_log where app_id = ${ownerApp.id} and action = 'member.invited'`;
  t.ok(invited.length >= 1, 'invitations are audited');
  t.notOk(JSON.stringify(invited).includes('wpi_'), 'never with the token');
});

t.test('the app counts against its owner’s plan, whoever sends', async (t) => {
  const member = await verified();
  await sql`insert into app_members (app_id, user_id, role) values (${ownerApp.id}, ${member.user.id}, 'editor')`;
  const usage = await call('GET', `${base}/usage`, member.token);
  t.equal(usage.statusCode, 200);
  const ownerUsage = await call('GET', `${base}/usage`, owner.token);
  t.strictSame(usage.json(), ownerUsage.json(), 'the member sees the owner’s plan and month');
  const sent = await call('POST', `${base}/notifications`, member.token, { title: 'Hello', body: 'team' });
  t.equal(sent.statusCode, 202, sent.body);
  const usageRows = await sql`select user_id from monthly_usage`;
  t.ok(
    usageRows.every((row) => row.user_id === owner.user.id),
    'the send is counted on the owner’s account',
  );
  // A member on the Free plan (one app) may still create an app of their own: member apps are not theirs.
  t.equal((await call('POST', '/api/v1/apps', member.token, { name: 'Mine' })).statusCode, 201);
});

t.test('deleting the app or the member’s account ends the membership', async (t) => {
  const throwaway = await createApp(app, owner.token, 'Short-lived');
  const member = await verified();
  await sql`insert into app_members (app_id, user_id, role) values (${throwaway.id}, ${member.user.id}, 'viewer')`;
  t.equal((await call('DELETE', `/api/v1/apps/${throwaway.id}`, owner.token)).statusCode, 204);
  const [left] = await sql`select count(*)::int as n from app_members where app_id = ${throwaway.id}`;
  t.equal(left?.n, 0);
  await sql`insert into app_members (app_id, user_id, role) values (${ownerApp.id}, ${member.user.id}, 'viewer')`;
  await sql`delete from users where id = ${member.user.id}`;
  const [gone] = await sql`select count(*)::int as n from app_members where user_id = ${member.user.id}`;
  t.equal(gone?.n, 0);
});
