import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@webpush/config';
import { waitFor } from '@webpush/testing';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import configPlugin from '../../src/plugins/app/config.js';
import errorHandler from '../../src/plugins/app/error-handler.js';
import dashboardRoutes, { type DashboardDevServer, defaultDashboardDistDir } from '../../src/site/dashboard/index.js';
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
async function dashboardApp(t: Test, distDir: string, devServer?: () => Promise<DashboardDevServer>) {
  const logs: string[] = [];
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logs.push(line) } } });
  await app.register(configPlugin, { config: loadConfig({ PUBLIC_URL: 'http://localhost:3000' }) });
  await app.register(errorHandler);
  await app.register(dashboardRoutes, { distDir, devServer });
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

/** Stands in for Vite: counts how often it is made, answers its own URLs, records its closing. */
function fakeViteFactory() {
  const made = { count: 0, closed: 0 };
  const create = async (): Promise<DashboardDevServer> => {
    made.count++;
    return {
      middlewares: (request, response, next) => {
        if (request.url !== '/@vite/client') return next();
        response.setHeader('content-type', 'text/javascript');
        response.end('// the HMR client');
      },
      html: async (url) => `<!doctype html><html lang="en"><title>from source</title><p>${url}</p>`,
      close: async () => {
        made.closed++;
      },
    };
  };
  return { made, create };
}

t.test('pnpm dev: Vite is made once the API listens, not before; pages and its URLs go through it', async (t) => {
  const vite = fakeViteFactory();
  const { app } = await dashboardApp(t, join(tmpdir(), 'no-dashboard-here'), vite.create);
  await app.ready();
  t.equal(vite.made.count, 0, 'the API is ready without it');
  await app.listen({ port: 0, host: '127.0.0.1' });
  await waitFor(() => vite.made.count === 1, 'Vite is made once the API listens');

  const page = await app.inject({ method: 'GET', url: '/apps/1', headers: { accept: HTML_ACCEPT } });
  t.equal(page.statusCode, 200);
  t.match(page.body, /from source.*\/apps\/1/);
  t.equal(page.headers['content-security-policy'], undefined, 'no CSP: the refresh preamble is inline');
  const client = await app.inject({ method: 'GET', url: '/@vite/client' });
  t.equal(client.body, '// the HMR client');
  t.equal((await app.inject({ method: 'GET', url: '/src/nothing.ts' })).statusCode, 404, 'what Vite does not know');
  t.equal(vite.made.count, 1, 'made once');
  await app.close();
  t.equal(vite.made.closed, 1, 'closed with the API');
});

t.test(
  'pnpm dev: without listening, the first page makes Vite; a Vite that fails is a 500 and a log line',
  async (t) => {
    const vite = fakeViteFactory();
    const { app } = await dashboardApp(t, join(tmpdir(), 'no-dashboard-here'), vite.create);
    t.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200);
    t.equal(vite.made.count, 1);

    const broken = await dashboardApp(t, join(tmpdir(), 'no-dashboard-here'), async () => {
      throw new Error('vite.config.ts: cannot parse');
    });
    await broken.app.listen({ port: 0, host: '127.0.0.1' });
    await waitFor(() => broken.logs.join('').includes('could not start'), 'the failure is logged');
    const logged = broken.logs.join('');
    t.match(logged, /the dashboard's dev server \(Vite\) could not start/);
    t.match(logged, /vite\.config\.ts: cannot parse/, 'with its reason');
    assertError(t, await broken.app.inject({ method: 'GET', url: '/' }), 'INTERNAL_ERROR');
    t.equal((await broken.app.inject({ method: 'GET', url: '/api/v1/known' })).statusCode, 200, 'the API still serves');
  },
);

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
    'Sign in to request this plan',
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
