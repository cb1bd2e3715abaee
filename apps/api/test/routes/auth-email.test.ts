import { readFile, rm } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { errorDetails } from '@webpush/errors';
import {
  createIsolatedResources,
  type MailServer,
  type ReceivedMail,
  startMailServer,
  testConfig,
  unusedPort,
} from '@webpush/testing';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { DEV_OUTBOX_DIR } from '../../src/plugins/app/mailer.js';
import { assertError, TEST_PUBLIC_URL } from '../assertions.js';
import { bearer, buildTestApp, registerUser, uniqueEmail } from '../helper.js';

// A real SMTP server on a loopback port: every message the API sends is read back as a mail client would.
const mail: MailServer = await startMailServer();
t.teardown(() => mail.close());
const ctx = await buildTestApp(t, {
  ...mail.env,
  MAIL_FROM: 'Web Push <no-reply@push.example.com>',
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_LOGIN_MAX: '1000',
});
const { app } = ctx;
const sql = ctx.database.sql;

const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: `/api/v1${url}`, headers, payload: payload as object });
const me = (token: string) => app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });

/** The token of the one link in the message that starts with `${PUBLIC_URL}${page}?token=`. */
function linkToken(message: ReceivedMail, page: string): string {
  const prefix = `${TEST_PUBLIC_URL}${page}?token=`;
  const links = message.text.split(/\s+/).filter((word) => word.startsWith(prefix));
  if (links.length !== 1) throw new Error(`expected one ${page} link in: ${message.text}`);
  return decodeURIComponent(links[0]?.slice(prefix.length) ?? '');
}

const hasLink = (page: string) => (message: ReceivedMail) => message.text.includes(`${TEST_PUBLIC_URL}${page}?token=`);

/** The token of the `count`-th e-mail to `address` with a `page` link (background sends may arrive in any order). */
async function nthLink(address: string, page: string, count = 1): Promise<string> {
  return linkToken(await mail.waitFor(address, { count, matching: hasLink(page) }), page);
}

async function tokenRows(userId: string, purpose: string) {
  return sql<{ token_hash: string; used: boolean; ttl_minutes: number }[]>`
    select token_hash, used_at is not null as used,
           round(extract(epoch from expires_at - created_at) / 60)::int as ttl_minutes
    from account_tokens where user_id = ${userId} and purpose = ${purpose} order by created_at`;
}

async function expectNoMailTo(app: FastifyInstance, address: string) {
  await app.mailer.settled();
  return mail.to(address).length;
}

t.test('registering sends a verification e-mail whose link verifies the address exactly once', async (t) => {
  const user = await registerUser(app);
  t.equal(user.user.emailVerified, false, 'a new account is not verified');

  const message = await mail.waitFor(user.email, { matching: hasLink('/verify-email') });
  t.equal(message.envelope.from, 'no-reply@push.example.com', 'MAIL_FROM is the envelope sender');
  t.equal(message.parsed.from?.value[0]?.address, 'no-reply@push.example.com');
  t.equal(message.parsed.to && !Array.isArray(message.parsed.to) ? message.parsed.to.text : '', user.email);
  t.match(message.parsed.subject, /e-mail/i);
  const token = linkToken(message, '/verify-email');
  t.match(token, /^wpv_[A-Za-z0-9_-]{43}$/, '256 bits of randomness');

  const [row, ...more] = await tokenRows(user.user.id, 'verify_email');
  t.equal(more.length, 0, 'one token stored');
  t.not(row?.token_hash, token, 'only a keyed hash is stored');
  t.notOk(row?.token_hash.includes(token.slice(4)), 'the token does not appear in the hash');
  t.equal(row?.ttl_minutes, 24 * 60, 'a verification link lives 24 hours');

  const verified = await post('/auth/verify-email', { token });
  t.equal(verified.statusCode, 200);
  t.strictSame(verified.json(), { user: { ...user.user, emailVerified: true } });
  const [stored] = await sql`select email_verified from users where id = ${user.user.id}`;
  t.equal(stored?.email_verified, true, 'stored as verified');
  t.strictSame((await me(user.token)).json(), { user: { ...user.user, emailVerified: true } }, '/auth/me says so');
  t.equal((await tokenRows(user.user.id, 'verify_email'))[0]?.used, true, 'the token is spent');

  assertError(t, await post('/auth/verify-email', { token }), 'INVALID_TOKEN');
  // The page then asks whether the link was used by an account now verified, and says so.
  const check = await post('/auth/verify-email/check', { token });
  t.equal(check.statusCode, 200);
  t.strictSame(check.json(), { alreadyVerified: true }, 'a used link of a verified account');
  t.strictSame((await post('/auth/verify-email/check', { token: `${token}x` })).json(), { alreadyVerified: false });
});

t.test(
  'verify-email: unknown, expired or wrong-purpose tokens are 400 INVALID_TOKEN; bad bodies are refused',
  async (t) => {
    const user = await registerUser(app);
    const token = await nthLink(user.email, '/verify-email');

    assertError(t, await post('/auth/verify-email', { token: `${token}x` }), 'INVALID_TOKEN');
    assertError(t, await post('/auth/verify-email', { token: 'wpv_unknown' }), 'INVALID_TOKEN');
    assertError(t, await post('/auth/verify-email', { token: 'x'.repeat(5000) }), 'INVALID_TOKEN');
    // A NUL byte is input PostgreSQL cannot store: refused at the input boundary, before any lookup.
    assertError(t, await post('/auth/verify-email', { token: 'nul\u0000byte' }), 'INVALID_INPUT');

    await sql`update account_tokens set expires_at = now() - interval '1 second'
            where user_id = ${user.user.id} and purpose = 'verify_email'`;
    assertError(t, await post('/auth/verify-email', { token }), 'INVALID_TOKEN');
    const [stored] = await sql`select email_verified from users where id = ${user.user.id}`;
    t.equal(stored?.email_verified, false, 'an expired link verifies nothing');
    t.strictSame(
      (await post('/auth/verify-email/check', { token })).json(),
      { alreadyVerified: false },
      'an expired, unused link is not "already verified"',
    );

    assertError(t, await post('/auth/verify-email', {}), 'MISSING_FIELDS');
    assertError(t, await post('/auth/verify-email', { token: '' }), 'MISSING_FIELDS');
    assertError(t, await post('/auth/verify-email'), 'MISSING_FIELDS');
    assertError(t, await post('/auth/verify-email', { token: 42 }), 'INVALID_INPUT');
    assertError(t, await post('/auth/verify-email', ['token']), 'INVALID_INPUT');
  },
);

t.test('resend (session) answers 202 and sends a new link; none once verified', async (t) => {
  const user = await registerUser(app);
  const first = await nthLink(user.email, '/verify-email', 1);

  const resent = await post('/auth/verify-email/resend', undefined, bearer(user.token));
  t.equal(resent.statusCode, 202);
  t.strictSame(resent.json(), {}, 'an empty object');
  const second = await nthLink(user.email, '/verify-email', 2);
  t.not(second, first, 'a fresh token');

  const verified = await post('/auth/verify-email', { token: second });
  t.equal(verified.statusCode, 200);
  t.equal((verified.json() as { user: { emailVerified: boolean } }).user.emailVerified, true);
  // The older link still verifies (nothing more to do): both were sent to the same mailbox.
  t.equal((await post('/auth/verify-email', { token: first })).statusCode, 200);

  const again = await post('/auth/verify-email/resend', undefined, bearer(user.token));
  t.equal(again.statusCode, 202);
  t.equal(await expectNoMailTo(app, user.email), 2, 'no third message for a verified address');

  assertError(t, await post('/auth/verify-email/resend'), 'UNAUTHORIZED');
  assertError(t, await post('/auth/verify-email/resend', undefined, bearer('wps_nope')), 'INVALID_SESSION');
});

t.test('password reset: the link sets a new password once and ends every session', async (t) => {
  const user = await registerUser(app);
  const login = await post('/auth/login', { email: user.email, password: user.password });
  const otherSession = (login.json() as { token: string }).token;
  t.equal((await me(otherSession)).statusCode, 200);

  const asked = await post('/auth/password-reset', { email: `  ${user.email.toUpperCase()} ` });
  t.equal(asked.statusCode, 202);
  t.strictSame(asked.json(), {}, 'an empty object');
  const message = await mail.waitFor(user.email, { matching: hasLink('/reset-password') });
  t.match(message.parsed.subject, /password/i);
  const token = linkToken(message, '/reset-password');
  t.match(token, /^wpr_[A-Za-z0-9_-]{43}$/);
  const [row] = await tokenRows(user.user.id, 'reset_password');
  t.not(row?.token_hash, token, 'only a keyed hash is stored');
  t.ok(row && row.ttl_minutes <= 60, 'a reset link expires within an hour');

  const newPassword = 'a brand new passphrase';
  const confirmed = await post('/auth/password-reset/confirm', { token, password: newPassword });
  t.equal(confirmed.statusCode, 200);
  t.strictSame(confirmed.json(), { user: { ...user.user, emailVerified: true } }, 'the link proved the mailbox too');

  assertError(t, await me(user.token), 'INVALID_SESSION');
  assertError(t, await me(otherSession), 'INVALID_SESSION');
  const [sessions] = await sql`select count(*)::int as n from sessions where user_id = ${user.user.id}`;
  t.equal(sessions?.n, 0, 'every session row is gone');

  assertError(t, await post('/auth/login', { email: user.email, password: user.password }), 'INVALID_CREDENTIALS');
  const relogin = await post('/auth/login', { email: user.email, password: newPassword });
  t.equal(relogin.statusCode, 200, 'the new password works');

  assertError(t, await post('/auth/password-reset/confirm', { token, password: 'yet another one' }), 'INVALID_TOKEN');
  const again = await post('/auth/login', { email: user.email, password: newPassword });
  t.equal(again.statusCode, 200, 'the second use changed nothing');
});

t.test('password reset: an unknown address is 202 and gets no e-mail', async (t) => {
  const nobody = uniqueEmail('nobody');
  const asked = await post('/auth/password-reset', { email: nobody });
  t.equal(asked.statusCode, 202);
  t.equal(await expectNoMailTo(app, nobody), 0, 'nothing was sent');
  const [tokens] = await sql`select count(*)::int as n from account_tokens where purpose = 'reset_password'
    and user_id not in (select id from users)`;
  t.equal(tokens?.n, 0);
  for (const email of ['not-an-email', 'x'.repeat(400)]) {
    t.equal((await post('/auth/password-reset', { email })).statusCode, 202, `202 for ${JSON.stringify(email)}`);
  }
  // A NUL byte is refused at the input boundary for every address alike, so it reveals nothing either.
  assertError(t, await post('/auth/password-reset', { email: 'nul\u0000@example.com' }), 'INVALID_INPUT');
  await app.mailer.settled();
  assertError(t, await post('/auth/password-reset', {}), 'MISSING_FIELDS');
  assertError(t, await post('/auth/password-reset', { email: ['a@b.c'] }), 'INVALID_INPUT');
});

t.test('password reset: expired, used, unknown and verification tokens are 400 INVALID_TOKEN', async (t) => {
  const user = await registerUser(app);
  const verifyToken = await nthLink(user.email, '/verify-email', 1);
  t.equal((await post('/auth/password-reset', { email: user.email })).statusCode, 202);
  const first = await nthLink(user.email, '/reset-password', 1);
  t.equal((await post('/auth/password-reset', { email: user.email })).statusCode, 202);
  const second = await nthLink(user.email, '/reset-password', 2);

  const confirm = (token: string, password = 'new password 123') =>
    post('/auth/password-reset/confirm', { token, password });
  assertError(t, await confirm(verifyToken), 'INVALID_TOKEN');
  assertError(t, await confirm('wpr_unknown'), 'INVALID_TOKEN');
  t.equal(
    (await post('/auth/verify-email', { token: first })).statusCode,
    400,
    'a reset token does not verify an e-mail',
  );

  await sql`update account_tokens set expires_at = now() - interval '1 second'
            where user_id = ${user.user.id} and purpose = 'reset_password'`;
  assertError(t, await confirm(first), 'INVALID_TOKEN');
  assertError(t, await confirm(second), 'INVALID_TOKEN');
  t.equal((await me(user.token)).statusCode, 200, 'a refused reset ends no session');
  const [stored] = await sql`select password_hash from users where id = ${user.user.id}`;
  t.match(stored?.password_hash, /^\$argon2id\$/);
  t.equal(
    (await post('/auth/login', { email: user.email, password: user.password })).statusCode,
    200,
    'the old password still works',
  );
});

t.test('password reset: one reset spends every other reset link of the user', async (t) => {
  const user = await registerUser(app);
  await post('/auth/password-reset', { email: user.email });
  const first = await nthLink(user.email, '/reset-password', 1);
  await post('/auth/password-reset', { email: user.email });
  const second = await nthLink(user.email, '/reset-password', 2);
  t.equal((await post('/auth/password-reset/confirm', { token: second, password: 'first new one' })).statusCode, 200);
  assertError(
    t,
    await post('/auth/password-reset/confirm', { token: first, password: 'second new one' }),
    'INVALID_TOKEN',
  );
});

t.test('password reset confirm: the password rules of register apply', async (t) => {
  const user = await registerUser(app);
  await post('/auth/password-reset', { email: user.email });
  const token = await nthLink(user.email, '/reset-password', 1);
  const confirm = (payload: unknown) => post('/auth/password-reset/confirm', payload);
  assertError(t, await confirm({ token, password: 'short' }), 'INVALID_INPUT', {
    message: errorDetails.PASSWORD_TOO_SHORT.message,
  });
  assertError(t, await confirm({ token, password: 'x'.repeat(129) }), 'INVALID_INPUT', {
    message: errorDetails.PASSWORD_TOO_LONG.message,
  });
  assertError(t, await confirm({ token }), 'MISSING_FIELDS');
  assertError(t, await confirm({ password: 'long enough password' }), 'MISSING_FIELDS');
  assertError(t, await confirm({ token, password: 12345678 }), 'INVALID_INPUT');
  t.equal((await me(user.token)).statusCode, 200, 'nothing happened');
  const ok = await confirm({ token, password: '8 chars!' });
  t.equal(ok.statusCode, 200, 'the token was not spent by the refused attempts');
});

t.test('a mail server that is down neither fails nor slows registration; resend works later', async (t) => {
  const port = await unusedPort();
  const broken = await buildTestApp(t, { SMTP_URL: `smtp://127.0.0.1:${port}` });
  const started = Date.now();
  const response = await broken.app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { email: uniqueEmail('offline'), password: 'correct horse battery' },
  });
  t.equal(response.statusCode, 201, 'registered');
  t.ok(Date.now() - started < 5_000, 'without waiting for the mail server');
  await broken.app.mailer.settled(); // the failure is logged, not thrown
  const [row] = await broken.database.sql`select count(*)::int as n from users`;
  t.equal(row?.n, 1, 'the account stays');
});

t.test(
  'without SMTP_URL the API says so at boot and logs each message instead of sending it, without its token',
  async (t) => {
    const resources = await createIsolatedResources();
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const quiet = await buildApp(testConfig(resources, { LOG_LEVEL: 'info' }), { logStream: stream });
    t.teardown(async () => {
      await quiet.close();
      await resources.dispose();
    });
    t.ok(
      lines.some((line) => String(line.msg).includes('SMTP_URL is not set')),
      'the boot log says e-mails are not sent',
    );
    const before = mail.received.length;
    const email = uniqueEmail('devmail');
    const response = await quiet.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email, password: 'correct horse battery' },
    });
    t.equal(response.statusCode, 201);
    await quiet.mailer.settled();
    t.equal(mail.received.length, before, 'no SMTP traffic');
    const logged = lines.find((line) => (line.mail as { to?: string } | undefined)?.to === email);
    const text = (logged?.mail as { text?: string } | undefined)?.text ?? '';
    t.match(text, /http:\/\/localhost:3000\/verify-email\?token=\[redacted\]/, 'the link is logged without its token');
    t.notMatch(JSON.stringify(lines), /wpv_[A-Za-z0-9_-]{8}/, 'no verification token anywhere in the log');
    const file = String(logged?.file);
    t.ok(file.startsWith(DEV_OUTBOX_DIR), 'the whole message is in the development outbox');
    t.match(await readFile(file, 'utf8'), /http:\/\/localhost:3000\/verify-email\?token=wpv_[A-Za-z0-9_-]{43}/);
    await rm(file);
  },
);
