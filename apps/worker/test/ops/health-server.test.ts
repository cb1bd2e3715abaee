import type { AddressInfo } from 'node:net';
import t from 'tap';
import { DependenciesDownError, startHealthServer } from '../../src/ops/health-server.js';

const ops = { username: 'ops', password: 'scrape-me' };
const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});
const metrics = async () => ({
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  body: 'webpush_pushes_total{outcome="sent"} 3\n',
});

t.test('/metrics is 404 without ops credentials configured (closed by default)', async (t) => {
  const server = await startHealthServer(0, '127.0.0.1', { ready: async () => {}, metrics });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  for (const headers of [{}, basic('ops', 'scrape-me')]) {
    const answer = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
    t.equal(answer.status, 404);
    t.strictSame(await answer.json(), { error: 'リソースが見つかりません', code: 'NOT_FOUND' });
  }
});

t.test('/metrics wants the ops credentials; failed logins are limited per IP, scrapes are not counted', async (t) => {
  const server = await startHealthServer(
    0,
    '127.0.0.1',
    { ready: async () => {}, metrics },
    { ops, maxFailedLogins: 3, windowSeconds: 60 },
  );
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/metrics`;

  const anonymous = await fetch(url);
  t.equal(anonymous.status, 401);
  t.match(anonymous.headers.get('www-authenticate'), /^Basic realm=/);
  t.strictSame(await anonymous.json(), { error: '認証ヘッダーがないか、形式が正しくありません', code: 'UNAUTHORIZED' });
  for (let i = 0; i < 4; i++) t.equal((await fetch(url, { headers: basic('ops', 'scrape-me') })).status, 200, 'scrape');
  t.equal((await fetch(url, { headers: basic('ops', 'guess') })).status, 401);
  t.equal((await fetch(url, { headers: basic('root', 'scrape-me') })).status, 401);
  const locked = await fetch(url, { headers: basic('ops', 'guess-3') });
  t.equal(locked.status, 429, 'after three failures (anonymous, two guesses) further guesses are refused unchecked');
  t.equal(locked.headers.get('retry-after'), '60');
  t.equal(((await locked.json()) as { code: string }).code, 'RATE_LIMITED');
  t.equal((await fetch(url, { headers: basic('ops', 'scrape-me') })).status, 200, 'the right credentials still pass');
});

t.test('/metrics serves the exposition the worker hands it, and 500 when that fails', async (t) => {
  let fail = false;
  const server = await startHealthServer(
    0,
    '127.0.0.1',
    {
      ready: async () => {},
      metrics: async () => {
        if (fail) throw new Error('registry broke');
        return metrics();
      },
    },
    { ops },
  );
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;

  const ok = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: basic('ops', 'scrape-me') });
  t.equal(ok.status, 200);
  t.equal(ok.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  t.equal(await ok.text(), 'webpush_pushes_total{outcome="sent"} 3\n');

  fail = true;
  const broken = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: basic('ops', 'scrape-me') });
  t.equal(broken.status, 500);
  t.strictSame(await broken.json(), { error: '内部エラーが発生しました', code: 'INTERNAL_ERROR' });
});

t.test('/healthz answers GET and HEAD; /readyz reports a failed check as 503; other methods are 404', async (t) => {
  let failure: Error | null = null;
  const server = await startHealthServer(0, '127.0.0.1', {
    ready: async () => {
      if (failure) throw failure;
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
  failure = new DependenciesDownError(['redis']);
  const down = await fetch(`${base}/readyz`);
  t.equal(down.status, 503);
  t.strictSame(await down.json(), { status: 'unavailable', down: ['redis'] }, 'names what is down, nothing more');
  failure = new Error('connect ECONNREFUSED 10.1.2.3:5432 password authentication failed for user "svc"');
  const unexpected = await fetch(`${base}/readyz`);
  t.equal(unexpected.status, 503);
  const text = await unexpected.text();
  t.strictSame(JSON.parse(text), { status: 'unavailable', down: [] });
  t.notMatch(text, /10\.1\.2\.3|password|ECONNREFUSED/, 'no internal error text');
  const post = await fetch(`${base}/healthz`, { method: 'POST' });
  t.equal(post.status, 404);
  t.strictSame(await post.json(), { error: 'リソースが見つかりません', code: 'NOT_FOUND' });
});
