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

t.test('/healthz answers GET and HEAD; /readyz reports a failed check as 503; other methods are 404', async (t) => {
  let ready = true;
  const server = await startHealthServer(0, '127.0.0.1', {
    ready: async () => {
      if (!ready) throw new Error('redis is reconnecting');
    },
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  t.equal((await fetch(`${base}/healthz`)).status, 200);
  const head = await fetch(`${base}/healthz`, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(await head.text(), '', 'HEAD has no body');
  t.equal((await fetch(`${base}/readyz`)).status, 200);
  ready = false;
  const down = await fetch(`${base}/readyz`);
  t.equal(down.status, 503);
  t.match(await down.json(), { status: 'unavailable', reason: 'redis is reconnecting' });
  const post = await fetch(`${base}/healthz`, { method: 'POST' });
  t.equal(post.status, 404);
  t.strictSame(await post.json(), { error: 'リソースが見つかりません', code: 'NOT_FOUND' });
});
