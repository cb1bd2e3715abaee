import { Writable } from 'node:stream';
import { type MailServer, startMailServer } from '@webpush/testing';
import t from 'tap';
import { TEST_PUBLIC_URL } from './assertions.js';
import { bearer, buildTestApp, createApp, createKey, uniqueEmail } from './helper.js';

// docs/security.md, "No token in the log": no token of an e-mail link, no API key and no
// session token is ever written to the log, including when a browser opens the link. The API runs
// with its own logger at `trace`, written to a captured stream; every secret the run handled is then
// looked for in what was written.
const lines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
const mail: MailServer = await startMailServer();
t.teardown(() => mail.close());
const { app } = await buildTestApp(
  t,
  { ...mail.env, LOG_LEVEL: 'trace', WEBHOOK_ALLOWED_HOSTS: 'receiver.test:8443' },
  { logStream },
);

/** Every secret the run saw, to look for in the log afterwards. */
const secrets = new Set<string>();
const keep = (secret: string) => {
  secrets.add(secret);
  return secret;
};

const linkToken = async (address: string, page: string, count = 1) => {
  const prefix = `${TEST_PUBLIC_URL}${page}?token=`;
  const message = await mail.waitFor(address, { count, matching: (m) => m.text.includes(prefix) });
  const link = message.text.split(/\s+/).find((word) => word.startsWith(prefix)) ?? '';
  return keep(decodeURIComponent(link.slice(prefix.length)));
};

/** A browser opening a link of an e-mail: a navigation to the dashboard page that carries `?token=`. */
const openLink = (page: string, token: string) =>
  app.inject({
    method: 'GET',
    url: `${page}?token=${encodeURIComponent(token)}`,
    headers: { accept: 'text/html', cookie: 'theme=dark' },
  });

t.test('a whole account journey leaves no secret in the log', async (t) => {
  const email = uniqueEmail('logs');
  const password = 'correct horse battery';
  const registered = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { email, password } });
  t.equal(registered.statusCode, 201);
  const firstSession = keep(registered.json().token as string);

  const verification = await linkToken(email, '/verify-email');
  t.equal((await openLink('/verify-email', verification)).statusCode, 200, 'the verification page opens');
  const verified = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/verify-email',
    payload: { token: verification },
  });
  t.equal(verified.statusCode, 200, 'verified');

  const asked = await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email } });
  t.equal(asked.statusCode, 202);
  const reset = await linkToken(email, '/reset-password');
  t.equal((await openLink('/reset-password', reset)).statusCode, 200, 'the reset page opens');
  // A token in a malformed body: the parser's error message quotes the body.
  const malformed = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/password-reset/confirm',
    headers: { 'content-type': 'application/json' },
    payload: `{"token": ${reset}, "password": "x"}`,
  });
  t.equal(malformed.statusCode, 400, 'malformed JSON');
  const newPassword = 'another horse battery staple';
  const confirmed = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/password-reset/confirm',
    payload: { token: reset, password: keep(newPassword) },
  });
  t.equal(confirmed.statusCode, 200, 'password reset');
  t.equal((await openLink('/reset-password', reset)).statusCode, 200, 'a used link still opens its page');

  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password: newPassword },
  });
  t.equal(login.statusCode, 200, 'signed in');
  const session = keep(login.json().token as string);
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/me', cookies: { wp_session: session } })).statusCode,
    200,
    'a request with the session cookie',
  );
  const created = await createApp(app, session);
  const key = keep((await createKey(app, session, created.id, 'full')).secret);
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(key) })).statusCode,
    200,
    'a request with an API key',
  );
  const webhook = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${created.id}/webhook`,
    headers: bearer(session),
    payload: { url: 'https://receiver.test:8443/hook', events: ['notification.completed'] },
  });
  t.equal(webhook.statusCode, 200, 'a webhook with its signing secret');
  keep(webhook.json().webhook.secret as string);
  const identity = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${created.id}/identity-secret`,
    headers: bearer(session),
  });
  t.equal(identity.statusCode, 201, 'an identity secret');
  const identitySecret = keep(identity.json().secret as string);
  // A client that puts a secret where it does not belong: the error is logged, the secret is not.
  const misplaced = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: `{"endpoint": ${identitySecret}}`,
  });
  t.equal(misplaced.statusCode, 400);

  // Secrets where they do not belong: in the URL of unknown routes, in a bad header, a bad URL.
  const inUrl = await app.inject({ method: 'GET', url: `/api/v1/nowhere?token=${reset}&api_key=${key}` });
  t.equal(inUrl.statusCode, 404);
  const badHeader = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: session } });
  t.equal(badHeader.statusCode, 401, 'a session without "Bearer "');
  const badUrl = await app.inject({ method: 'GET', url: `/api/v1/%zz?token=${verification}` });
  t.equal(badUrl.statusCode, 400, 'a URL that does not decode');
  const stale = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(firstSession) });
  t.equal(stale.statusCode, 401, 'the reset ended the first session');
  const githubCallback = await app.inject({
    method: 'GET',
    url: '/api/v1/auth/github/callback?code=gh-code-1234567890&state=state-1234567890',
  });
  t.ok(githubCallback.statusCode >= 400, 'a GitHub callback (not configured)');
  keep('gh-code-1234567890');
  keep('state-1234567890');

  await app.mailer.settled();
  const log = lines.join('');
  t.match(log, /"url":"\/verify-email"/, 'the opened verification link is logged, by its path');
  t.match(log, /"url":"\/reset-password"/, 'the opened reset link is logged, by its path');
  const requestLines = lines.filter((line) => line.includes('"msg":"request"')).length;
  t.ok(requestLines >= 20, `the run was logged, one line per request (${requestLines} of ${lines.length} lines)`);
  for (const secret of secrets) {
    t.notOk(log.includes(secret), `${secret.slice(0, 4)}… is nowhere in the log`);
    // Not even a recognisable part of one (e.g. a token cut or re-encoded inside a message).
    const tail = secret.slice(-16);
    t.notOk(log.includes(tail), `no part of ${secret.slice(0, 4)}… is in the log`);
  }
  t.notMatch(log, /"(authorization|cookie|set-cookie)":"(?!\[redacted\])/i, 'no credential header is logged');
});
