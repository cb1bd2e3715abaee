// `pnpm build`: the SDK and its optional UI parts as ES modules (dist/index.js, dist/prompt.js,
// dist/bell.js, dist/categories.js, sharing chunks), as script-tag bundles (dist/web-sdk.js with the
// global `WebPush`; dist/web-sdk-prompt.js etc. adding `WebPush.prompt`, … and using that global
// SDK) and the service worker as a plain script (dist/sw.js). Types come from
// `tsc --emitDeclarationOnly` afterwards. Tests import `bundles` to build the same thing in memory.
// `node build.mjs --sizes` prints each script-tag part's size.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, context } from 'esbuild';

const root = fileURLToPath(new URL('.', import.meta.url));

/** @type {import('esbuild').BuildOptions} */
const common = { absWorkingDir: root, bundle: true, target: ['es2020'], legalComments: 'none', logLevel: 'warning' };

/** The UI parts: each its own import (`@webpush/web-sdk/prompt`) and its own script. */
export const UI_PARTS = ['prompt', 'bell', 'categories'];

/** A part loaded by a script tag calls the page's `WebPush` rather than carrying a second copy of it. */
const globalCore = {
  name: 'global-core',
  setup(builder) {
    builder.onResolve({ filter: /^\.\/core\.js$/ }, () => ({ path: join(root, 'src/ui/core-global.ts') }));
  },
};

/** @type {import('esbuild').BuildOptions} */
const modules = {
  ...common,
  entryPoints: { index: 'src/index.ts', ...Object.fromEntries(UI_PARTS.map((part) => [part, `src/ui/${part}.ts`])) },
  format: 'esm',
  splitting: true,
  sourcemap: true,
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
};

/** @type {Record<string, import('esbuild').BuildOptions>} */
export const bundles = {
  'web-sdk.js': { ...common, entryPoints: ['src/index.ts'], format: 'iife', globalName: 'WebPush', minify: true },
  'sw.js': { ...common, entryPoints: ['src/sw.ts'], format: 'iife', minify: true },
  ...Object.fromEntries(
    UI_PARTS.map((part) => [
      `web-sdk-${part}.js`,
      {
        ...common,
        entryPoints: [`src/ui/${part}.ts`],
        format: 'iife',
        globalName: `WebPush.${part}`,
        minify: true,
        plugins: [globalCore],
      },
    ]),
  ),
};

/** The files the API serves under /sdk/. */
export const SERVED = Object.keys(bundles);

/** Builds one bundle without writing it: its text, for the size test and the browser tests. */
export async function bundleText(name) {
  const result = await build({ ...bundles[name], write: false, sourcemap: false, outfile: `dist/${name}` });
  const file = result.outputFiles.find((output) => output.path.endsWith(name));
  if (!file) throw new Error(`esbuild produced no ${name}`);
  return file.text;
}

/**
 * Writes the script-tag bundle and the worker into dist/ the way `pnpm build` does, each through a
 * rename so a server reading dist/ at that moment never sees half a file (the browser tests use it).
 */
export async function writeServedBundles() {
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const name of SERVED) {
    const target = join(root, 'dist', name);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, await bundleText(name));
    renameSync(temporary, target);
  }
}

/**
 * `pnpm dev`: the served bundles rebuilt on every change of src/, so /sdk/web-sdk.js and /sdk/sw.js
 * work on a fresh clone without `pnpm build` (the API re-reads them on each request in development).
 */
async function watchServedBundles() {
  for (const name of SERVED) {
    const watcher = await context({
      ...bundles[name],
      outfile: `dist/${name}`,
      plugins: [{ name: 'report', setup: (b) => b.onEnd(() => console.log(`web SDK: dist/${name} built`)) }],
    });
    await watcher.watch();
  }
}

/** Minified and gzipped bytes of each script-tag file: the core SDK, the worker, each UI part alone. */
export async function sizes() {
  const rows = [];
  for (const name of SERVED) {
    const text = await bundleText(name);
    rows.push({ name, minified: Buffer.byteLength(text), gzipped: gzipSync(Buffer.from(text), { level: 9 }).length });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--watch')) await watchServedBundles();
  else if (process.argv.includes('--sizes')) {
    for (const row of await sizes())
      console.log(
        `${row.name.padEnd(24)} ${String(row.minified).padStart(6)} B minified ${String(row.gzipped).padStart(6)} B gzipped`,
      );
  } else
    await Promise.all([
      build(modules),
      ...Object.entries(bundles).map(([name, options]) => build({ ...options, outfile: `dist/${name}` })),
    ]);
}
