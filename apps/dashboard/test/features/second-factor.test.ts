import t from 'tap';
import { secondFactorOf } from '../../src/features/auth/second-factor.js';

t.test('six digits are the authenticator’s code, spaces as apps group them allowed', async (t) => {
  t.same(secondFactorOf('492039'), { totp: '492039' });
  t.same(secondFactorOf(' 492 039 '), { totp: '492039' });
});

t.test('anything else is a recovery code, as typed', async (t) => {
  t.same(secondFactorOf(' k7m2q-x4t9a '), { recoveryCode: 'k7m2q-x4t9a' });
  t.same(secondFactorOf('12345'), { recoveryCode: '12345' });
  t.same(secondFactorOf('1234567'), { recoveryCode: '1234567' });
});
