import { errorDetails } from '@webpush/errors';
import t from 'tap';
import { buildTestApp, registerUser, uniqueEmail } from '../helper.js';

// Passwords: at least 8 and at most 128 characters, and with PASSWORD_REFUSE_COMMON none of the
// 10,000 most common. Each refusal is still 400 INVALID_INPUT, with a message that names the rule
// broken. Without the setting (the default) any password of 8 to 128 characters registers, as the
// contract promises.
const limits = { RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '1000' };
const { app } = await buildTestApp(t, { ...limits, PASSWORD_REFUSE_COMMON: 'true' });
const { app: defaults } = await buildTestApp(t, limits);

const register = (password: string) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { email: uniqueEmail('pw'), password } });

t.test('each broken rule is INVALID_INPUT with its own message', async (t) => {
  const cases = [
    ['short', 'PASSWORD_TOO_SHORT', /too short/],
    ['x'.repeat(129), 'PASSWORD_TOO_LONG', /too long/],
    ['password', 'PASSWORD_TOO_COMMON', /too common/],
    ['Password', 'PASSWORD_TOO_COMMON', /too common/],
    ['password123', 'PASSWORD_TOO_COMMON', /too common/],
    ['qwertyuiop', 'PASSWORD_TOO_COMMON', /too common/],
    ['iloveyou', 'PASSWORD_TOO_COMMON', /too common/],
  ] as const;
  for (const [password, detail, rule] of cases) {
    const response = await register(password);
    t.equal(response.statusCode, 400, `${password.slice(0, 12)}: 400`);
    t.strictSame(response.json(), { error: errorDetails[detail].message, code: 'INVALID_INPUT' });
    t.match(response.json().error, rule);
    t.match(response.json().error, /[\u3040-\u30ff\u4e00-\u9fff]/, 'in Japanese');
  }
});

t.test('by default a common password of the allowed length registers; the lengths still hold', async (t) => {
  const registerByDefault = (password: string) =>
    defaults.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { email: uniqueEmail('pwd'), password } });
  for (const password of ['password', 'password123', 'iloveyou']) {
    t.equal((await registerByDefault(password)).statusCode, 201, password);
  }
  const short = await registerByDefault('short');
  t.strictSame(short.json(), { error: errorDetails.PASSWORD_TOO_SHORT.message, code: 'INVALID_INPUT' });
});

t.test('an uncommon password of the allowed length is accepted', async (t) => {
  for (const password of ['correct horse battery', 'kq7#vz2m', '🔑'.repeat(128)]) {
    t.equal((await register(password)).statusCode, 201, `${[...password].length} characters`);
  }
});

t.test('a password reset keeps the same rules', async (t) => {
  const user = await registerUser(app);
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/password-reset/confirm',
    payload: { token: 'wpr_not-a-real-token', password: 'password1' },
  });
  t.strictSame(response.json(), { error: errorDetails.PASSWORD_TOO_COMMON.message, code: 'INVALID_INPUT' });
  t.ok(user.user.id, 'the user is untouched');
});
