import { testCoordination } from '@webpush/testing';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { buildTestApp } from '../helper.js';

// Redis, or `coordination` when the API keeps its counters in its own process (health.in-process.test.ts).
const shared = testCoordination() === 'redis' ? 'redis' : 'coordination';

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
  t.strictSame(response.json(), { status: 'ok', database: 'ok', [shared]: 'ok' });
});

t.test(
  'GET /readyz answers 503 when PostgreSQL does not',
  // In-process coordination holds its lock in PostgreSQL: without it the API does not start.
  { skip: shared === 'coordination' && 'in-process coordination needs PostgreSQL to start' },
  async (t) => {
    const unreachable = await buildTestApp(t, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' });
    const response = await unreachable.app.inject({ method: 'GET', url: '/readyz' });
    t.equal(response.statusCode, 503);
    t.match(response.json(), { database: 'down', redis: 'ok' });
    t.equal((await unreachable.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'still alive');
  },
);

t.test(
  'in-process coordination: a second API process on the same database is refused with what to do',
  { skip: shared === 'redis' && 'Redis coordination serves any number of API processes' },
  async (t) => {
    await t.rejects(buildApp(ctx.config, { logger: false }), {
      name: 'CoordinationTakenError',
      message:
        'another API process already runs on this database with in-process coordination (COORDINATION=process is for exactly one API process): stop it first, or run on PostgreSQL and Redis (docs/deployment.md)',
    });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    t.equal(response.statusCode, 200, 'the first one is undisturbed');
  },
);
