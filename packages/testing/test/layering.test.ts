import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';

// Packages are the shared floor; apps stand on them. A package whose code imports an app would make
// the app's build a dependency of everything below it (the bench once did: it now lives in
// apps/bench). Checked: each package's runtime dependencies and its src/. The web SDK's browser tests
// still start the real API, as an end-to-end test must.
const root = resolve(import.meta.dirname, '../../..');
const appNames = readdirSync(join(root, 'apps')).map(
  (dir) => (JSON.parse(readFileSync(join(root, 'apps', dir, 'package.json'), 'utf8')) as { name: string }).name,
);

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) found.push(path);
  }
  return found;
}

t.test('no package depends on or imports an app', async (t) => {
  t.ok(appNames.includes('@webpush/api') && appNames.includes('@webpush/worker'), 'the apps are found');
  const offences: string[] = [];
  for (const dir of readdirSync(join(root, 'packages'))) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    for (const field of ['dependencies', 'peerDependencies']) {
      for (const name of Object.keys(manifest[field] ?? {})) {
        if (appNames.includes(name)) offences.push(`packages/${dir}/package.json ${field}: ${name}`);
      }
    }
    for (const file of sourceFiles(join(root, 'packages', dir, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)) {
        const specifier = match[1] ?? '';
        if (
          appNames.some((name) => specifier === name || specifier.startsWith(`${name}/`)) ||
          /(^|\/)apps\//.test(specifier)
        ) {
          offences.push(`${file.slice(root.length + 1)} imports ${specifier}`);
        }
      }
    }
  }
  t.strictSame(offences, [], 'imports from packages into apps');
});
