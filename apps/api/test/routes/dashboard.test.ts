import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@webpush/config';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import configPlugin from '../../src/plugins/app/config.js';
import errorHandler from '../../src/plugins/app/error-handler.js';
import dashboardRoutes, { defaultDashboardDistDir } from '../../src/site/dashboard/index.js';
import { CONTENT_SECURITY_POLICY } from '../../src/site/dashboard/navigation.js';
import { assertError } from '../assertions.js';
import { buildTestApp } from '../helper.js';

const INDEX =
  '<!doctype html><title>Web Push</title><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>';
const PRICING = '<!doctype html><title>Pricing</title><h2>Free</h2><h2>Pro</h2><h2>Enterprise</h2>';
const SCRIPT = 'console.log("dashboard");';
const STYLE = 'body{margin:0}';
const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function fixtureDist(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'pricing.html'), PRICING);
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-def456.css'), STYLE);
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Only what the dashboard routes need: config, the contract's error handler (and 404), the routes. */
async function dashboardApp(t: Test, distDir: string) {
  const logs: string[] = [];
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logs.push(line) } } });
  await app.register(configPlugin, { config: loadConfig({ PUBLIC_URL: 'http://localhost:3000' }) });
  await app.register(errorHandler);
  await app.register(dashboardRoutes, { distDir });
  app.get('/api/v1/known', async () => ({ ok: true }));
  t.teardown(() => app.close());
  return { app, logs };
}

function assertPage(
  t: Test,
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  body: string,
) {
  t.equal(response.statusCode, 200);
  t.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  t.equal(response.headers['cache-control'], 'no-cache', 'index.html is revalidated every time');
  t.equal(response.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
  t.equal(response.body, body);
}

t.test('the Content-Security-Policy allows no inline script or style', async (t) => {
  const directives = Object.fromEntries(
    CONTENT_SECURITY_POLICY.split('; ').map((directive) => {
      const [name, ...values] = directive.split(' ');
      return [name, values];
    }),
  );
  t.same(directives['script-src'], ["'self'"]);
  t.same(directives['style-src'], ["'self'"]);
  t.same(directives['default-src'], ["'self'"]);
  t.same(directives['object-src'], ["'none'"]);
  t.same(directives['frame-ancestors'], ["'none'"]);
  t.notMatch(CONTENT_SECURITY_POLICY, /unsafe/);
});

t.test('GET / and GET /pricing answer their pages with no-cache and the CSP', async (t) => {
  const { app, logs } = await dashboardApp(t, fixtureDist(t));
  assertPage(t, await app.inject({ method: 'GET', url: '/' }), INDEX);
  assertPage(t, await app.inject({ method: 'GET', url: '/pricing' }), PRICING);
  // Plain HTTP clients (no Accept header, or */*) get the same pages: they are real routes.
  assertPage(t, await app.inject({ method: 'GET', url: '/pricing', headers: { accept: '*/*' } }), PRICING);
  assertPage(t, await app.inject({ method: 'GET', url: '/?from=github' }), INDEX);
  t.same(logs, []);
});

t.test('hashed assets are cached for a year; an unknown asset is the JSON 404', async (t) => {
  const { app } = await dashboardApp(t, fixtureDist(t));
  const script = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
  t.equal(script.statusCode, 200);
  t.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
  t.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(script.body, SCRIPT);
  const style = await app.inject({ method: 'GET', url: '/assets/index-def456.css' });
  t.equal(style.headers['content-type'], 'text/css; charset=utf-8');
  t.equal(style.body, STYLE);

  for (const url of ['/assets/index-old999.js', '/assets/..%2Findex.html', '/assets/']) {
    const missing = await app.inject({ method: 'GET', url, headers: { accept: HTML_ACCEPT } });
    assertError(t, missing, 'NOT_FOUND');
    t.equal(missing.headers['cache-control'], undefined, `${url} is not cached`);
  }
});

t.test('a browser navigating to a client route gets the app; nothing else does', async (t) => {
  const { app } = await dashboardApp(t, fixtureDist(t));
  for (const url of ['/apps/123/keys', '/account', '/sign-in?next=%2Fapps', '/no/such/page', '/verify-email?token=x']) {
    const page = await app.inject({ method: 'GET', url, headers: { accept: HTML_ACCEPT } });
    assertPage(t, page, INDEX);
  }

  const notNavigations: { method: 'GET' | 'POST' | 'HEAD' | 'DELETE'; url: string; accept?: string }[] = [
    { method: 'GET', url: '/apps/123' }, // no Accept: a script
    { method: 'GET', url: '/apps/123', accept: 'application/json' },
    { method: 'GET', url: '/apps/123', accept: '*/*' },
    { method: 'GET', url: '/apps/123', accept: 'text/htmlx' },
    { method: 'POST', url: '/apps/123', accept: HTML_ACCEPT },
    { method: 'DELETE', url: '/account', accept: HTML_ACCEPT },
    { method: 'HEAD', url: '/apps/123', accept: HTML_ACCEPT },
    { method: 'GET', url: '/api/v1/nope', accept: HTML_ACCEPT },
    { method: 'GET', url: '/api/v1', accept: HTML_ACCEPT },
    { method: 'GET', url: '/api', accept: HTML_ACCEPT },
    { method: 'GET', url: '/sdk/missing.js', accept: HTML_ACCEPT },
    { method: 'GET', url: '/docs/missing', accept: HTML_ACCEPT },
    { method: 'GET', url: '/admin/queues/x', accept: HTML_ACCEPT },
    { method: 'GET', url: '/metrics', accept: HTML_ACCEPT },
  ];
  for (const { method, url, accept } of notNavigations) {
    const response = await app.inject({ method, url, headers: accept ? { accept } : {} });
    t.equal(response.statusCode, 404, `${method} ${url} (${accept ?? 'no Accept'})`);
    if (method !== 'HEAD') assertError(t, response, 'NOT_FOUND');
    t.equal(response.headers['content-security-policy'], undefined);
  }

  const known = await app.inject({ method: 'GET', url: '/api/v1/known', headers: { accept: HTML_ACCEPT } });
  t.same(known.json(), { ok: true }, 'routes that exist answer as before');
});

t.test('without a build, the pages answer 503 CONFIG_ERROR and the log says why', async (t) => {
  const { app, logs } = await dashboardApp(t, join(tmpdir(), 'no-dashboard-here'));
  assertError(t, await app.inject({ method: 'GET', url: '/' }), 'CONFIG_ERROR');
  assertError(t, await app.inject({ method: 'GET', url: '/pricing' }), 'CONFIG_ERROR');
  assertError(t, await app.inject({ method: 'GET', url: '/apps/1', headers: { accept: HTML_ACCEPT } }), 'CONFIG_ERROR');
  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/nope', headers: { accept: HTML_ACCEPT } }),
    'NOT_FOUND',
  );
  t.match(logs.join(''), /the dashboard is not built/);
});

t.test('the whole API serves the built dashboard and keeps its own paths', async (t) => {
  const { app } = await buildTestApp(t);
  const home = await app.inject({ method: 'GET', url: '/', headers: { accept: HTML_ACCEPT } });
  t.equal(home.statusCode, 200, `built into ${defaultDashboardDistDir()}`);
  t.match(home.body, /<div id="root">/);
  t.notMatch(home.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  t.equal(home.headers['content-security-policy'], CONTENT_SECURITY_POLICY);

  // The pricing page reads without JavaScript: every plan with its limits is in the HTML itself.
  const pricing = await app.inject({ method: 'GET', url: '/pricing' });
  t.equal(pricing.statusCode, 200);
  t.match(pricing.headers['content-type'], /^text\/html/);
  for (const text of [
    'Free',
    'Pro',
    'Enterprise',
    '30,000 sends a month',
    '3,000,000 sends a month',
    '1 app',
    'pnpm admin set-plan',
  ]) {
    t.match(pricing.body, text, `pricing shows ${text}`);
  }

  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(home.body)?.[1] ?? '';
  const script = await app.inject({ method: 'GET', url: asset });
  t.equal(script.statusCode, 200, asset);
  t.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');

  const route = await app.inject({ method: 'GET', url: '/apps/x/send', headers: { accept: HTML_ACCEPT } });
  t.equal(route.body, home.body, 'client routes get the app');
  for (const url of ['/healthz', '/api/v1/openapi.json']) {
    const response = await app.inject({ method: 'GET', url, headers: { accept: HTML_ACCEPT } });
    t.equal(response.statusCode, 200, url);
    t.match(response.headers['content-type'], /^application\/json/, `${url} keeps its meaning`);
  }
  const demo = await app.inject({ method: 'GET', url: '/demo', headers: { accept: HTML_ACCEPT } });
  t.notMatch(demo.body, /<div id="root">/, '/demo is still the demo');
  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/nope', headers: { accept: HTML_ACCEPT } }),
    'NOT_FOUND',
  );
  assertError(t, await app.inject({ method: 'GET', url: '/nope' }), 'NOT_FOUND');
});
