import { type MailServer, startMailServer } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, createApp, ownerWithKey, registerUser, uniqueEmail } from '../../helper.js';

// Limits that hold against many addresses: an IPv6 client is counted per /64, reset and
// verification mail per recipient as well as per IP, a session's writes per user, and the login and
// mail routes refuse (503) rather than go uncounted when Redis is down.
const mail: MailServer = await startMailServer();
t.teardown(() => mail.close());
const { app } = await buildTestApp(t, {
  ...mail.env,
  RATE_LIMIT_LOGIN_MAX: '3',
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_MAIL_PER_ADDRESS_MAX: '2',
  RATE_LIMIT_SESSION_WRITE_MAX: '3',
});

const login = (remoteAddress: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    remoteAddress,
    payload: { email: 'nobody@example.com', password: 'wrong password' },
  });

t.test('IPv6 addresses of one /64 share a login counter; another /64 has its own', async (t) => {
  for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3']) {
    t.equal((await login(address)).statusCode, 401, `${address} is counted`);
  }
  assertError(t, await login('2001:db8:1:2:abcd:1234:5678:9'), 'RATE_LIMITED');
  t.equal((await login('2001:db8:1:3::1')).statusCode, 401, 'the next /64 is another client');
  t.equal((await login('10.9.8.7')).statusCode, 401, 'IPv4 is still per address');
});

t.test('reset mails to one address are capped whatever the number of client addresses', async (t) => {
  const user = await registerUser(app, uniqueEmail('victim'));
  await app.mailer.settled();
  for (let i = 1; i <= 5; i++) {
    const asked = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/password-reset',
      remoteAddress: `10.20.0.${i}`,
      payload: { email: user.email },
    });
    t.equal(asked.statusCode, 202, 'always 202: the answer tells nothing');
  }
  await app.mailer.settled();
  const resets = mail.to(user.email, (m) => m.text.includes('/reset-password?token='));
  t.equal(resets.length, 2, 'RATE_LIMIT_MAIL_PER_ADDRESS_MAX reset mails, not five');

  const other = await registerUser(app, uniqueEmail('bystander'));
  await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: other.email } });
  await app.mailer.settled();
  t.equal(mail.to(other.email, (m) => m.text.includes('/reset-password?token=')).length, 1, 'another address');
});

t.test('verification resends are capped per address too', async (t) => {
  const user = await registerUser(app, uniqueEmail('resend'));
  for (let i = 0; i < 3; i++) {
    const resend = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/verify-email/resend',
      headers: bearer(user.token),
      remoteAddress: `10.21.0.${i}`,
    });
    t.equal(resend.statusCode, 202);
  }
  await app.mailer.settled();
  t.equal(
    mail.to(user.email, (m) => m.text.includes('/verify-email?token=')).length,
    2,
    'the registration mail and one resend',
  );
});

t.test("a session's writes are limited per user; reads and other users are not", async (t) => {
  const user = await registerUser(app);
  const owned = await createApp(app, user.token); // write 1
  const rename = (token: string, appId: string, name: string) =>
    app.inject({ method: 'PATCH', url: `/api/v1/apps/${appId}`, headers: bearer(token), payload: { name } });
  t.equal((await rename(user.token, owned.id, 'two')).statusCode, 200);
  t.equal((await rename(user.token, owned.id, 'three')).statusCode, 200);
  const over = await rename(user.token, owned.id, 'four');
  assertError(t, over, 'RATE_LIMITED');
  t.equal(over.headers['retry-after'], '60');
  const read = await app.inject({ method: 'GET', url: `/api/v1/apps/${owned.id}`, headers: bearer(user.token) });
  t.equal(read.statusCode, 200, 'reads are not counted');
  const other = await registerUser(app);
  t.equal((await createApp(app, other.token)).name, 'Test app', 'another user writes');
});

t.test('Redis down: login and the mail routes answer 503; API-key and session routes still work', async (t) => {
  const outage = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000' });
  const owner = await ownerWithKey(outage.app, 'full');
  outage.app.redis.disconnect();

  const refused = [
    { method: 'POST', url: '/api/v1/auth/login', payload: { email: owner.user.email, password: owner.user.password } },
    { method: 'POST', url: '/api/v1/auth/register', payload: { email: uniqueEmail(), password: 'long enough pass' } },
    { method: 'POST', url: '/api/v1/auth/password-reset', payload: { email: owner.user.email } },
  ] as const;
  for (const request of refused) {
    const response = await outage.app.inject(request);
    t.equal(response.statusCode, 503, `${request.url} fails closed`);
    t.equal(response.json().code, 'RATE_LIMITED');
    t.match(response.json().error, /確認できない/, 'the message says the limit cannot be checked');
    t.equal(response.headers['retry-after'], '60');
  }
  const key = await outage.app.inject({
    method: 'GET',
    url: '/api/v1/vapid-public-key',
    headers: bearer(owner.secret),
  });
  t.equal(key.statusCode, 200, 'API-key routes fail open');
  const write = await outage.app.inject({
    method: 'PATCH',
    url: `/api/v1/apps/${owner.app.id}`,
    headers: bearer(owner.user.token),
    payload: { name: 'still works' },
  });
  t.equal(write.statusCode, 200, 'session writes fail open');
});
