import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startHealthServer } from '../src/health-server.js';

t.test('/metrics serves the exposition the worker hands it, and 500 when that fails', async (t) => {
  let fail = false;
  const server = await startHealthServer(0, '127.0.0.1', {
    ready: async () => {},
    metrics: async () => {
      if (fail) throw new Error('registry broke');
      return {
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        body: 'webpush_pushes_total{outcome="sent"} 3\n',
      };
    },
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  const ok = await fetch(`http://127.0.0.1:${port}/metrics`);
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.equal(await ok.text(), 'webpush_pushes_total{outcome="sent"} 3\n');

  fail = true;
  const broken = await fetch(`http://127.0.0.1:${port}/metrics`);
  t.equal(broken.status, 500);
  t.strictSame(await broken.json(), { error: '内部エラーが発生しました', code: 'INTERNAL_ERROR' });
});
