// `pnpm build`: the SDK as an ES module (dist/index.js), as one script-tag bundle with the global
// `WebPush` (dist/web-sdk.js) and the service worker as a plain script (dist/sw.js). Types come
// from `tsc --emitDeclarationOnly` afterwards. Tests import `bundles` to build the same thing in memory.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, context } from 'esbuild';

const root = fileURLToPath(new URL('.', import.meta.url));

/** @type {import('esbuild').BuildOptions} */
const common = { absWorkingDir: root, bundle: true, target: ['es2020'], legalComments: 'none', logLevel: 'warning' };

/** @type {Record<string, import('esbuild').BuildOptions>} */
export const bundles = {
  'index.js': { ...common, entryPoints: ['src/index.ts'], format: 'esm', sourcemap: true },
  'web-sdk.js': { ...common, entryPoints: ['src/index.ts'], format: 'iife', globalName: 'WebPush', minify: true },
  'sw.js': { ...common, entryPoints: ['src/sw.ts'], format: 'iife', minify: true },
};

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
  for (const name of ['web-sdk.js', 'sw.js']) {
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
  for (const name of ['web-sdk.js', 'sw.js']) {
    const watcher = await context({
      ...bundles[name],
      outfile: `dist/${name}`,
      plugins: [{ name: 'report', setup: (b) => b.onEnd(() => console.log(`web SDK: dist/${name} built`)) }],
    });
    await watcher.watch();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--watch')) await watchServedBundles();
  else
    await Promise.all(Object.entries(bundles).map(([name, options]) => build({ ...options, outfile: `dist/${name}` })));
}
