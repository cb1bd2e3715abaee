import { unusedPort } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { buildTestApp } from '../helper.js';

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

// OPS_PORT: /metrics and Bull Board leave the public port for a listener of their own.
t.test('with OPS_PORT the ops surfaces answer only on their own listener', async (t) => {
  const port = await unusedPort();
  const { app, config } = await buildTestApp(t, {
    OPS_USERNAME: 'ops',
    OPS_PASSWORD: 'a long ops password',
    OPS_PORT: String(port),
  });
  t.strictSame(config.opsListener, { host: '127.0.0.1', port }, 'loopback by default');
  for (const url of ['/metrics', '/admin/queues', '/admin/queues/api/queues']) {
    assertError(t, await app.inject({ method: 'GET', url, headers: basic('ops', 'a long ops password') }), 'NOT_FOUND');
  }

  const ops = app.opsServer;
  if (!ops) throw new Error('no ops server');
  await ops.listen(config.opsListener ?? { port });
  const base = `http://127.0.0.1:${port}`;
  const metrics = await fetch(`${base}/metrics`, { headers: basic('ops', 'a long ops password') });
  t.equal(metrics.status, 200, '/metrics on the ops port');
  t.match(await metrics.text(), /# HELP/);
  const queues = await fetch(`${base}/admin/queues/api/queues`, { headers: basic('ops', 'a long ops password') });
  t.equal(queues.status, 200, 'Bull Board on the ops port');
  const anonymous = await fetch(`${base}/metrics`);
  t.equal(anonymous.status, 401, 'still behind basic auth');
  const elsewhere = await fetch(`${base}/api/v1/plans`);
  t.equal(elsewhere.status, 404, 'nothing else is served there');
  t.equal(((await elsewhere.json()) as { code: string }).code, 'NOT_FOUND');
});

t.test('without OPS_PORT they stay on the API port', async (t) => {
  const { app } = await buildTestApp(t, { OPS_USERNAME: 'ops', OPS_PASSWORD: 'a long ops password' });
  t.equal(app.opsServer, null);
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: basic('ops', 'a long ops password') });
  t.equal(metrics.statusCode, 200);
});
