import t from 'tap';
import { assertError } from '../assertions.js';
import { buildTestApp } from '../helper.js';

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

t.test('without OPS_USERNAME and OPS_PASSWORD there is no Bull Board and no /metrics: 404', async (t) => {
  const { app } = await buildTestApp(t, { OPS_USERNAME: 'ops' });
  for (const url of ['/admin/queues', '/admin/queues/api/queues', '/metrics']) {
    assertError(t, await app.inject({ method: 'GET', url }), 'NOT_FOUND');
    assertError(t, await app.inject({ method: 'GET', url, headers: basic('ops', '') }), 'NOT_FOUND');
  }
});

t.test('failed ops logins are limited per IP (in the coordination); successful scrapes are not counted', async (t) => {
  const { app } = await buildTestApp(t, {
    OPS_USERNAME: 'ops',
    OPS_PASSWORD: 'right',
    RATE_LIMIT_LOGIN_MAX: '3',
    TRUST_PROXY: '1',
  });
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  for (let i = 0; i < 5; i++) {
    const scrape = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { ...basic('ops', 'right'), ...from('10.0.0.1') },
    });
    t.equal(scrape.statusCode, 200, `scrape ${i + 1} is not counted`);
  }
  for (let i = 0; i < 3; i++) {
    const url = i % 2 === 0 ? '/metrics' : '/admin/queues';
    const wrong = await app.inject({
      method: 'GET',
      url,
      headers: { ...basic('ops', `guess-${i}`), ...from('10.0.0.1') },
    });
    assertError(t, wrong, 'UNAUTHORIZED');
  }
  for (const url of ['/metrics', '/admin/queues']) {
    const locked = await app.inject({ method: 'GET', url, headers: { ...basic('ops', 'guess'), ...from('10.0.0.1') } });
    assertError(t, locked, 'RATE_LIMITED');
    t.equal(locked.headers['retry-after'], '60', 'Retry-After: the window');
    const right = await app.inject({ method: 'GET', url, headers: { ...basic('ops', 'right'), ...from('10.0.0.1') } });
    t.equal(right.statusCode, 200, `${url}: the right credentials still pass from the locked address`);
  }
  const elsewhere = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { ...basic('ops', 'right'), ...from('10.0.0.2') },
  });
  t.equal(elsewhere.statusCode, 200, 'another IP is not locked out');
});

t.test('with them, Bull Board and /metrics answer only to those credentials', async (t) => {
  // Twelve wrong attempts below: the failed-login limit is not under test here.
  const { app } = await buildTestApp(t, {
    OPS_USERNAME: 'ops',
    OPS_PASSWORD: 's3cret:with-colon',
    RATE_LIMIT_LOGIN_MAX: '100',
  });

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
  t.strictSame(queues.map((queue) => queue.name).sort(), ['deliveries', 'fan-out', 'webhooks']);
  t.equal(queues.find((queue) => queue.name === 'fan-out')?.counts.waiting, 1);

  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: basic('ops', 's3cret:with-colon') });
  t.equal(metrics.statusCode, 200);
  t.match(metrics.body, /webpush_queue_jobs\{queue="fan-out",state="waiting"\} 1/);
});

t.test('QUEUE_BACKEND=postgres: Bull Board and the queue gauges show the queues kept in PostgreSQL', async (t) => {
  const { app } = await buildTestApp(t, { QUEUE_BACKEND: 'postgres', OPS_USERNAME: 'ops', OPS_PASSWORD: 'right' });
  await app.queues.fanOut.add('fan-out', { notificationId: '00000000-0000-4000-8000-000000000002' });
  const api = await app.inject({ method: 'GET', url: '/admin/queues/api/queues', headers: basic('ops', 'right') });
  t.equal(api.statusCode, 200);
  const { queues } = api.json() as { queues: { name: string; counts: Record<string, number> }[] };
  t.strictSame(queues.map((queue) => queue.name).sort(), ['deliveries', 'fan-out', 'webhooks']);
  t.equal(queues.find((queue) => queue.name === 'fan-out')?.counts.waiting, 1);
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: basic('ops', 'right') });
  t.match(metrics.body, /webpush_queue_jobs\{queue="fan-out",state="waiting"\} 1/);
});
