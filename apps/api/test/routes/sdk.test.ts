import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@webpush/config';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import configPlugin from '../../src/plugins/app/config.js';
import errorHandler from '../../src/plugins/app/error-handler.js';
import sdkRoutes, { defaultSdkDistDir } from '../../src/site/sdk/index.js';
import { buildTestApp } from '../helper.js';

const SDK_SOURCE = 'var WebPush=(()=>({}))();\n';
const SW_SOURCE = "self.addEventListener('push',()=>{});\n";
const PART_SOURCES = {
  'web-sdk-prompt.js': 'var WebPush=WebPush||{};WebPush.prompt={};\n',
  'web-sdk-bell.js': 'var WebPush=WebPush||{};WebPush.bell={};\n',
  'web-sdk-categories.js': 'var WebPush=WebPush||{};WebPush.categories={};\n',
};

function fixtureDist(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'web-sdk-dist-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Only the pieces the SDK routes need: config, the contract's error handler, and the routes. */
async function sdkApp(t: Test, distDir: string) {
  const logs: string[] = [];
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logs.push(line) } } });
  await app.register(configPlugin, { config: loadConfig({ PUBLIC_URL: 'http://localhost:3000' }) });
  await app.register(errorHandler);
  await app.register(sdkRoutes, { distDir });
  t.teardown(() => app.close());
  return { app, logs };
}

t.test('serves the SDK, its UI parts and the service worker as cacheable JavaScript', async (t) => {
  const files = { 'web-sdk.js': SDK_SOURCE, 'sw.js': SW_SOURCE, ...PART_SOURCES };
  const { app, logs } = await sdkApp(t, fixtureDist(t, files));
  for (const [path, body] of Object.entries(files).map(([name, text]) => [`/sdk/${name}`, text] as const)) {
    const response = await app.inject({ method: 'GET', url: path });
    t.equal(response.statusCode, 200, path);
    t.equal(response.headers['content-type'], 'text/javascript; charset=utf-8');
    t.equal(response.headers['cache-control'], 'public, max-age=300');
    t.match(response.headers.etag, /^"[A-Za-z0-9_-]{27}"$/);
    t.equal(response.headers['access-control-allow-origin'], '*');
    t.equal(response.body, body);
  }
  const sw = await app.inject({ method: 'GET', url: '/sdk/sw.js' });
  t.equal(sw.headers['service-worker-allowed'], '/');
  const sdk = await app.inject({ method: 'GET', url: '/sdk/web-sdk.js' });
  t.equal(sdk.headers['service-worker-allowed'], undefined, 'only on the worker');
  t.not(sdk.headers.etag, sw.headers.etag, 'the ETag follows the content');
  t.same(logs, [], 'nothing to complain about');
});

t.test('answers 304 to a matching If-None-Match', async (t) => {
  const { app } = await sdkApp(t, fixtureDist(t, { 'web-sdk.js': SDK_SOURCE, 'sw.js': SW_SOURCE }));
  const first = await app.inject({ method: 'GET', url: '/sdk/web-sdk.js' });
  const etag = String(first.headers.etag);
  for (const header of [etag, `W/${etag}`, `"other", ${etag}`]) {
    const again = await app.inject({ method: 'GET', url: '/sdk/web-sdk.js', headers: { 'if-none-match': header } });
    t.equal(again.statusCode, 304, header);
    t.equal(again.body, '');
    t.equal(again.headers.etag, etag);
    t.equal(again.headers['cache-control'], 'public, max-age=300');
  }
  const stale = await app.inject({ method: 'GET', url: '/sdk/web-sdk.js', headers: { 'if-none-match': '"stale"' } });
  t.equal(stale.statusCode, 200);
  t.equal(stale.body, SDK_SOURCE);
});

t.test('reads the files once, at startup', async (t) => {
  const dir = fixtureDist(t, { 'web-sdk.js': SDK_SOURCE, 'sw.js': SW_SOURCE });
  const { app } = await sdkApp(t, dir);
  writeFileSync(join(dir, 'web-sdk.js'), 'changed');
  const response = await app.inject({ method: 'GET', url: '/sdk/web-sdk.js' });
  t.equal(response.body, SDK_SOURCE);
});

t.test('an unbuilt SDK answers 503 CONFIG_ERROR and says so in the log', async (t) => {
  const { app, logs } = await sdkApp(t, join(tmpdir(), 'no-such-web-sdk-dist'));
  for (const path of ['/sdk/web-sdk.js', '/sdk/sw.js']) {
    const response = await app.inject({ method: 'GET', url: path });
    t.equal(response.statusCode, 503, path);
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const body = response.json() as Record<string, unknown>;
    t.same(Object.keys(body).sort(), ['code', 'error']);
    t.equal(body.code, 'CONFIG_ERROR');
  }
  const notBuilt = logs.filter((line) => line.includes('web SDK is not built'));
  t.equal(notBuilt.length, 1, 'logged once, at startup');
  t.match(notBuilt[0], /web-sdk\.js/);
});

t.test('one missing file fails only that file', async (t) => {
  const { app } = await sdkApp(t, fixtureDist(t, { 'web-sdk.js': SDK_SOURCE }));
  t.equal((await app.inject({ method: 'GET', url: '/sdk/web-sdk.js' })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/sdk/sw.js' })).statusCode, 503);
});

t.test('the built SDK is looked for in the web-sdk package', async (t) => {
  t.match(defaultSdkDistDir(), /packages[/\\]web-sdk[/\\]dist$/);
});

t.test('GET /demo: a self-contained page whose inline code its own CSP allows', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/demo' });
  t.equal(response.statusCode, 200);
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  t.equal(response.headers.vary, 'Accept-Language');
  t.equal(response.headers['content-language'], 'en');
  const japanese = await app.inject({ method: 'GET', url: '/demo', headers: { 'accept-language': 'ja,en;q=0.5' } });
  t.match(japanese.body, '<html lang="ja">');
  t.match(japanese.body, 'Web プッシュのデモ');
  t.equal(japanese.headers['content-security-policy'], response.headers['content-security-policy'], 'one policy');
  const html = response.body;
  t.match(html, /<input id="key"/);
  t.match(html, /<button id="subscribe"/);
  t.match(html, /<script src="\/sdk\/web-sdk\.js"><\/script>/);
  t.match(html, /test-notification/);
  t.notMatch(html, /(src|href)="(https?:)?\/\//, 'no external resources');

  const csp = String(response.headers['content-security-policy']);
  t.match(csp, /default-src 'none'/);
  t.match(csp, /connect-src 'self'/);
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const inlineScript = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  t.match(html, /<script type="application\/json" id="messages">/, 'the messages are data, not code');
  const inlineStyle = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
  t.ok(inlineScript.length > 100 && inlineStyle.length > 100, 'the page has inline script and style');
  t.ok(csp.includes(hash(inlineScript)), 'the inline script is allowed by hash');
  t.ok(csp.includes(hash(inlineStyle)), 'the inline style is allowed by hash');
});

t.test('the SDK routes sit outside /api/v1', async (t) => {
  const { app } = await buildTestApp(t);
  const response = await app.inject({ method: 'GET', url: '/api/v1/sdk/web-sdk.js' });
  t.equal(response.statusCode, 404);
  t.equal((response.json() as { code: string }).code, 'NOT_FOUND');
});
