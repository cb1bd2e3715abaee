import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteOptions } from 'fastify';
import t from 'tap';
import { buildTestApp } from '../helper.js';

const API_PREFIX = '/api/v1';
const routesDir = fileURLToPath(new URL('../../src/routes', import.meta.url));

/** `/apps/:appId/keys` → `<routes>/apps/_appId/keys`: the folder a URL names. */
const folderOf = (url: string) => join(routesDir, ...url.split('/').map((part) => part.replace(/^:/, '_')));

/** Every folder of the routes tree that holds an `index.ts`, as a URL (`apps/_appId` → `/apps/:appId`). */
function routeFolders(dir = routesDir): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const here = entries.some((entry) => entry.name === 'index.ts')
    ? [`/${relative(routesDir, dir).split(sep).join('/')}`.replace(/\/_/g, '/:').replace(/\/$/, '')]
    : [];
  return here.concat(
    ...entries.filter((entry) => entry.isDirectory()).map((entry) => routeFolders(join(dir, entry.name))),
  );
}

t.test('every API route is declared by the index file of the folder its URL names', async (t) => {
  const routes: RouteOptions[] = [];
  await buildTestApp(t, {}, { onRoute: (route) => routes.push({ ...route }) });
  const api = routes.filter(
    (route) => route.url.startsWith(`${API_PREFIX}/`) && route.url !== `${API_PREFIX}/openapi.json`,
  );
  t.ok(api.length >= 40, `the API's routes were seen (${api.length})`);

  const served = new Set<string>();
  for (const route of api) {
    const url = route.url.replace(/\/$/, '').slice(API_PREFIX.length);
    const method = [route.method].flat().join(',');
    // Declared at '/' of its plugin: the folder, and nothing in the file, gives the URL.
    t.ok(['', '/'].includes(route.routePath), `${method} ${route.url} is declared at '/', not '${route.routePath}'`);
    t.equal(
      route.prefix?.replace(/\/$/, ''),
      `${API_PREFIX}${url}`,
      `${method} ${route.url}: its plugin's prefix is its URL`,
    );
    t.ok(
      existsSync(join(folderOf(url), 'index.ts')),
      `${method} ${route.url} → routes${url.replace(/\/:/g, '/_')}/index.ts`,
    );
    served.add(url);
  }
  // And the other way: no index file in the tree that serves nothing (a route moved, its folder left).
  for (const folder of routeFolders())
    t.ok(served.has(folder), `routes${folder.replace(/\/:/g, '/_')}/index.ts serves ${API_PREFIX}${folder}`);
});

t.test('pages, files and links live outside the API tree, and outside /api', async (t) => {
  const routes: RouteOptions[] = [];
  await buildTestApp(t, {}, { onRoute: (route) => routes.push({ ...route }) });
  const outside = routes.filter((route) => !route.url.startsWith(`${API_PREFIX}/`));
  for (const path of ['/', '/pricing', '/demo', '/sdk/web-sdk.js', '/sdk/sw.js', '/c/:token', '/healthz', '/readyz']) {
    t.ok(
      outside.some((route) => route.url === path),
      `${path} is served`,
    );
  }
  for (const route of outside) t.notOk(route.url.startsWith('/api/'), `${route.url} is not under /api`);
});
