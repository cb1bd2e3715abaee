import t from 'tap';
import { buildTestApp } from '../helper.js';

const ctx = await buildTestApp(t);
const { app } = ctx;

t.test('GET /healthz answers 200 while the process is up', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { status: 'ok' });
});

t.test('GET /readyz answers 200 when PostgreSQL and Redis answer', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(response.statusCode, 200);
  t.match(response.json(), { status: 'ok', database: 'ok', redis: 'ok' });
});

t.test('GET /readyz answers 503 when PostgreSQL does not', async (t) => {
  const unreachable = await buildTestApp(t, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' });
  const response = await unreachable.app.inject({ method: 'GET', url: '/readyz' });
  t.equal(response.statusCode, 503);
  t.match(response.json(), { database: 'down', redis: 'ok' });
  t.equal((await unreachable.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'still alive');
});
