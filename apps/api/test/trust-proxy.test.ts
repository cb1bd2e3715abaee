import t, { type Test } from 'tap';
import { trustProxyOption } from '../src/app.js';
import { assertError } from './assertions.js';
import { buildTestApp, uniqueEmail } from './helper.js';

/** Two registrations from "different" clients, per X-Forwarded-For, against a limit of one per IP. */
async function registerTwice(t: Test, env: Record<string, string>, forwardedFor: [string, string]) {
  const { app } = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1', ...env });
  const statuses: number[] = [];
  for (const xff of forwardedFor) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      headers: { 'x-forwarded-for': xff },
      payload: { email: uniqueEmail(), password: 'correct horse battery' },
    });
    statuses.push(response.statusCode);
    if (response.statusCode === 429) assertError(t, response, 'RATE_LIMITED');
  }
  return statuses;
}

// One proxy in front of the API appends the address it saw; the client wrote the rest.
const spoofed: [string, string] = ['1.1.1.1, 203.0.113.7', '2.2.2.2, 203.0.113.7'];

t.test('TRUST_PROXY=true: a client picks its own IP (the left-most entry) and escapes the limit', async (t) => {
  const statuses = await registerTwice(t, { TRUST_PROXY: 'true' }, spoofed);
  t.strictSame(statuses, [201, 201], 'which is why README says not to use it');
});

t.test('TRUST_PROXY=1 (one proxy hop): the address the proxy saw counts', async (t) => {
  const statuses = await registerTwice(t, { TRUST_PROXY: '1' }, spoofed);
  t.strictSame(statuses, [201, 429]);
});

t.test('TRUST_PROXY=<the proxy address>: the same, and the peer itself is checked', async (t) => {
  const statuses = await registerTwice(t, { TRUST_PROXY: '127.0.0.1' }, spoofed);
  t.strictSame(statuses, [201, 429]);
});

t.test('a hop count becomes a trust function (Fastify 5.12 treats a bare number as "trust nothing")', async (t) => {
  const trust = trustProxyOption(2) as (address: string, hop: number) => boolean;
  t.strictSame([trust('10.0.0.1', 0), trust('10.0.0.1', 1), trust('10.0.0.1', 2)], [true, true, false]);
  t.equal(trustProxyOption('10.0.0.0/8'), '10.0.0.0/8');
  t.equal(trustProxyOption(false), false);
});
