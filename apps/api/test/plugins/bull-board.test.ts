import t from 'tap';
import { assertError } from '../assertions.js';
import { buildTestApp } from '../helper.js';

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

t.test('without OPS_USERNAME and OPS_PASSWORD there is no Bull Board, and /metrics is open', async (t) => {
  const { app } = await buildTestApp(t, { OPS_USERNAME: 'ops' });
  assertError(t, await app.inject({ method: 'GET', url: '/admin/queues' }), 'NOT_FOUND');
  assertError(t, await app.inject({ method: 'GET', url: '/admin/queues/api/queues' }), 'NOT_FOUND');
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 200);
});

t.test('with them, Bull Board and /metrics answer only to those credentials', async (t) => {
  const { app } = await buildTestApp(t, { OPS_USERNAME: 'ops', OPS_PASSWORD: 's3cret:with-colon' });

  for (const url of ['/admin/queues', '/admin/queues/api/queues', '/metrics']) {
    const anonymous = await app.inject({ method: 'GET', url });
    assertError(t, anonymous, 'UNAUTHORIZED');
    t.match(anonymous.headers['www-authenticate'], /^Basic realm=/);
    assertError(t, await app.inject({ method: 'GET', url, headers: basic('ops', 'wrong') }), 'UNAUTHORIZED');
    assertError(
      t,
      await app.inject({ method: 'GET', url, headers: basic('root', 's3cret:with-colon') }),
      'UNAUTHORIZED',
    );
    assertError(t, await app.inject({ method: 'GET', url, headers: { authorization: 'Basic !!!' } }), 'UNAUTHORIZED');
  }

  const page = await app.inject({ method: 'GET', url: '/admin/queues', headers: basic('ops', 's3cret:with-colon') });
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /text\/html/);

  await app.queues.fanOut.add('fan-out', { notificationId: '00000000-0000-4000-8000-000000000001' });
  const api = await app.inject({
    method: 'GET',
    url: '/admin/queues/api/queues',
    headers: basic('ops', 's3cret:with-colon'),
  });
  t.equal(api.statusCode, 200);
  const { queues } = api.json() as { queues: { name: string; counts: Record<string, number> }[] };
  t.strictSame(queues.map((queue) => queue.name).sort(), ['deliveries', 'fan-out']);
  t.equal(queues.find((queue) => queue.name === 'fan-out')?.counts.waiting, 1);

  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: basic('ops', 's3cret:with-colon') });
  t.equal(metrics.statusCode, 200);
  t.match(metrics.body, /webpush_queue_jobs\{queue="fan-out",state="waiting"\} 1/);
});
