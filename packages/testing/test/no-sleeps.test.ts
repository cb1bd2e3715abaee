import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import t from 'tap';

// Tests wait one way: `waitFor`/`waitForValue` (a deadline, and the failure names what was awaited),
// `quietFor` for "nothing happens", `pause` for time that must pass on purpose (an outage's length).
// All of them live in wait-for.ts; a timer promise anywhere else in a test is a guess at how long
// something takes, which fails on a loaded machine and wastes time on an idle one.
const root = resolve(import.meta.dirname, '../../..');
const HELPER = 'packages/testing/src/wait-for.ts';
const THIS_CHECK = 'packages/testing/test/no-sleeps.test.ts';

const SLEEPS: { pattern: RegExp; what: string }[] = [
  { pattern: /setTimeout\(\s*(?:resolve|res|r|done|next)\b/, what: 'a timer that resolves a promise' },
  { pattern: /new Promise\b[^\n]*=>\s*setTimeout\(/, what: 'a timer promise' },
  { pattern: /timers\/promises/, what: 'node:timers/promises' },
  { pattern: /promisify\(\s*setTimeout\s*\)/, what: 'a promisified setTimeout' },
];

function filesUnder(dir: string, inTest: boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', '.tap', 'coverage'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path, inTest || entry.name === 'test'));
    else if (inTest && /\.(ts|tsx|mts|cts|js|mjs)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** Every file of a test folder under apps/ and packages/, and the shared test kit's sources. */
function testFiles(): string[] {
  const files: string[] = [];
  for (const group of ['apps', 'packages']) {
    for (const dir of readdirSync(join(root, group))) files.push(...filesUnder(join(root, group, dir), false));
  }
  files.push(...filesUnder(join(root, 'packages/testing/src'), true));
  return files;
}

t.test('no test sleeps outside the waiting helper', async (t) => {
  const files = testFiles();
  t.ok(files.some((file) => file.endsWith('.test.ts')) && files.length > 50, `${files.length} files checked`);
  const offences: string[] = [];
  for (const file of files) {
    const path = relative(root, file);
    if (path === HELPER || path === THIS_CHECK) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        const sleep = SLEEPS.find(({ pattern }) => pattern.test(line));
        if (sleep) offences.push(`${path}:${index + 1}: ${sleep.what} (use waitFor, quietFor or pause)`);
      });
  }
  t.strictSame(offences, [], 'tests wait through @webpush/testing/src/wait-for.ts');
});

t.test('the check recognises the sleeps it refuses', async (t) => {
  const samples = [
    'await new Promise((resolve) => setTimeout(resolve, 50));',
    'await new Promise((r) => setTimeout(r, 10));',
    "import { setTimeout as sleep } from 'node:timers/promises';",
    'const sleep = promisify(setTimeout);',
  ];
  for (const sample of samples)
    t.ok(
      SLEEPS.some(({ pattern }) => pattern.test(sample)),
      sample,
    );
  t.notOk(
    SLEEPS.some(({ pattern }) => pattern.test('const timer = setTimeout(() => reject(new Error(what)), ms);')),
    'a deadline timer is not a sleep',
  );
});
