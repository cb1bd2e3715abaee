import { existsSync, readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { bundleText, sizes, UI_PARTS } from '../build.mjs';

const SIZE_BUDGET = 5 * 1024;
/** web-sdk.js gzipped before the UI parts existed; the core may grow by at most 10 % over it. */
const CORE_BEFORE_UI_PARTS = 3224;
const CORE_BUDGET = Math.floor(CORE_BEFORE_UI_PARTS * 1.1);
/** Each UI part on its own (the core comes from web-sdk.js). */
const PART_BUDGET = 4 * 1024;

t.test('sizes per part: the core within its budget, each UI part small', async (t) => {
  const rows = await sizes();
  for (const row of rows) t.comment(`${row.name}: ${row.minified} B minified, ${row.gzipped} B gzipped`);
  const size = (name: string) => rows.find((row) => row.name === name)?.gzipped ?? Number.NaN;
  t.ok(size('web-sdk.js') <= CORE_BUDGET, `core ${size('web-sdk.js')} B ≤ ${CORE_BUDGET} B`);
  for (const part of UI_PARTS) {
    t.ok(size(`web-sdk-${part}.js`) <= PART_BUDGET, `${part} ${size(`web-sdk-${part}.js`)} B ≤ ${PART_BUDGET} B`);
  }
});

t.test('each UI part script adds itself to the page’s WebPush and carries no copy of the core', async (t) => {
  const core = await bundleText('web-sdk.js');
  for (const part of UI_PARTS) {
    const source = await bundleText(`web-sdk-${part}.js`);
    t.notMatch(source, /vapid-public-key/, `${part}: the core is not bundled again`);
    const context: Record<string, unknown> = {};
    runInNewContext(core, context);
    runInNewContext(source, context);
    t.same(Object.keys(context), ['WebPush'], `${part}: no other global`);
    const api = context.WebPush as Record<string, unknown>;
    t.type(api[part], 'object', `WebPush.${part}`);
    t.type(api.subscribe, 'function', 'the core is still there');
  }
});

t.test('the script-tag bundle is under 5 kB minified + gzipped', async (t) => {
  const source = await bundleText('web-sdk.js');
  const gzipped = gzipSync(Buffer.from(source), { level: 9 }).length;
  t.comment(`web-sdk.js: ${Buffer.byteLength(source)} B minified, ${gzipped} B gzipped`);
  t.ok(gzipped < SIZE_BUDGET, `${gzipped} B gzipped must stay under ${SIZE_BUDGET} B`);
  t.notMatch(source, /\brequire\(|\bimport\s*[({]|^export\b/m, 'self-contained: no module loading');
});

const built = new URL('../dist/web-sdk.js', import.meta.url);
t.test(
  'dist/web-sdk.js, as `pnpm build` wrote it, is under 5 kB gzipped',
  { skip: !existsSync(built) && 'not built yet' },
  async (t) => {
    const gzipped = gzipSync(readFileSync(built), { level: 9 }).length;
    t.ok(gzipped < SIZE_BUDGET, `${gzipped} B gzipped must stay under ${SIZE_BUDGET} B`);
  },
);

t.test('the bundle defines the global WebPush and nothing else', async (t) => {
  const source = await bundleText('web-sdk.js');
  const context: Record<string, unknown> = {};
  runInNewContext(source, context);
  t.same(Object.keys(context), ['WebPush']);
  const api = context.WebPush as Record<string, unknown>;
  t.same(Object.keys(api).sort(), ['WebPushError', 'getState', 'subscribe', 'trackConversion', 'unsubscribe']);
  const getState = api.getState as () => Promise<string>;
  t.equal(await getState(), 'unsupported', 'a page without push is told so, not thrown at');
});

t.test('the service worker is a plain script that listens for its four events', async (t) => {
  const source = await bundleText('sw.js');
  const events: string[] = [];
  const self = { addEventListener: (type: string) => events.push(type), location: { href: 'https://a.example/sw.js' } };
  runInNewContext(source, { self });
  t.same(events.sort(), ['install', 'notificationclick', 'push', 'pushsubscriptionchange']);
});

t.test('neither bundle talks to anyone but the configured service', async (t) => {
  for (const name of ['web-sdk.js', 'sw.js']) {
    const source = await bundleText(name);
    t.notMatch(source, /https?:\/\/(?!localhost\/)/, `${name} has no hard-coded URL`);
    t.notMatch(source, /sendBeacon|localStorage|document\.cookie/, `${name} has no tracking or storage`);
  }
});
