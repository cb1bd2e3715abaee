import t from 'tap';
import { assertError } from '../assertions.js';
import { buildTestApp, registerUser, uniqueEmail } from '../helper.js';

// Sign-in is limited per account as well as per IP: a slow password spray from many addresses
// against one account is throttled, the same way for an e-mail nobody has.
const { app } = await buildTestApp(t, {
  RATE_LIMIT_LOGIN_MAX: '1000',
  RATE_LIMIT_LOGIN_ACCOUNT_MAX: '3',
  RATE_LIMIT_LOGIN_ACCOUNT_WINDOW_SECONDS: '600',
});

let address = 0;
const login = (email: string, password: string) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email, password },
    remoteAddress: `198.51.100.${++address}`, // a new client address every time
  });

t.test('failures from many addresses against one account are throttled, the right password too', async (t) => {
  const victim = await registerUser(app);
  const bystander = await registerUser(app);
  for (let attempt = 0; attempt < 3; attempt++)
    assertError(t, await login(victim.email, 'wrong guess'), 'INVALID_CREDENTIALS');

  const throttled = await login(victim.email.toUpperCase(), victim.password);
  assertError(t, throttled, 'RATE_LIMITED');
  const retryAfter = Number(throttled.headers['retry-after']);
  t.ok(retryAfter > 0 && retryAfter <= 600, `Retry-After within the window (${retryAfter})`);

  t.equal((await login(bystander.email, bystander.password)).statusCode, 200, 'another account signs in');
});

t.test('an unknown e-mail is answered exactly like a known one', async (t) => {
  const nobody = uniqueEmail('nobody');
  for (let attempt = 0; attempt < 3; attempt++)
    assertError(t, await login(nobody, 'wrong guess'), 'INVALID_CREDENTIALS');
  assertError(t, await login(nobody, 'wrong guess'), 'RATE_LIMITED');
});

t.test('a successful sign-in counts nothing', async (t) => {
  const user = await registerUser(app);
  for (let attempt = 0; attempt < 5; attempt++) t.equal((await login(user.email, user.password)).statusCode, 200);
});
