#!/usr/bin/env node
// `pnpm test`: migrates a template database for this run, runs every test file with tap (each file
// clones the template and takes its own Redis prefix), drops what the run made, and ends with one
// plain line `N passed, N failed` for people and CI logs.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';

const root = new URL('..', import.meta.url).pathname;
const runId = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const template = `wp_tmpl_${runId}`;
const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const only = process.argv.slice(2);
// `test/` at the root holds the tests of the root's own files (Dockerfile, compose, manifests).
const files =
  only.length > 0
    ? only
    : ['apps', 'packages', 'test']
        .filter((dir) => existsSync(join(root, dir)))
        .flatMap((dir) => findTests(join(root, dir)))
        .sort();

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
const templateUrl = new URL(adminUrl);
templateUrl.pathname = `/${template}`;

async function dropRunDatabases() {
  const rows = await admin`select datname from pg_database where datname like ${`wp_%${runId}%`}`;
  for (const { datname } of rows) await admin.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
}

// Build first (turbo caches it): the build type-checks every package and produces the browser SDK
// bundle the API serves.
const build = spawnSync(join(root, 'node_modules/.bin/turbo'), ['run', 'build', '--output-logs=errors-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) {
  console.error('build failed: fix the errors above before the tests can run');
  console.log('\n0 passed, 1 failed');
  process.exit(1);
}

/**
 * Follows tap's TAP stream (four spaces a nesting level) and keeps each failed assertion with the
 * path of subtests above it and the first lines of its YAML diagnostic.
 */
function failureCollector() {
  const stack = [];
  const found = [];
  let pending = '';
  let diag = null;
  let last = null;
  return {
    feed(text) {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (diag) {
          if (/^\s*\.\.\.\s*$/.test(line)) diag = null;
          else if (diag.length < 12) diag.push(line.trim());
          continue;
        }
        const subtest = /^( *)# Subtest: (.*)$/.exec(line);
        if (subtest) {
          const depth = subtest[1].length / 4;
          stack.length = depth;
          stack[depth] = subtest[2];
          continue;
        }
        const failed = /^( *)not ok \d+ - (.*?)(?: # time=.*)?$/.exec(line);
        if (failed) {
          const depth = failed[1].length / 4;
          // A subtest's own closing line repeats a failure already kept from inside it.
          if (
            stack[depth] === failed[2] &&
            found.some((f) => f.path.startsWith(`${stack.slice(0, depth + 1).join(' > ')} > `))
          )
            continue;
          last = { path: [...stack.slice(0, depth), failed[2]].join(' > '), diag: [] };
          found.push(last);
          continue;
        }
        // The YAML block right after a failure is its diagnostic.
        if (last && /^\s*---\s*$/.test(line)) diag = last.diag;
        last = null;
      }
    },
    report() {
      return found.slice(0, 40).flatMap((f) => [`not ok - ${f.path}`, ...f.diag.map((d) => `    ${d}`)]);
    },
  };
}

let exitCode = 1;
try {
  await admin.unsafe(`CREATE DATABASE "${template}"`);
  const { runMigrations } = await import('../packages/db/src/migrate.ts');
  await runMigrations(templateUrl.toString());

  const tap = spawn(join(root, 'node_modules/.bin/tap'), ['--reporter=tap', ...files], {
    cwd: root,
    env: { ...process.env, TEST_RUN_ID: runId, TEST_TEMPLATE_DATABASE: template, TEST_ADMIN_DATABASE_URL: adminUrl },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let summary = '';
  const failures = failureCollector();
  tap.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    summary = (summary + chunk.toString()).slice(-4096);
    failures.feed(chunk.toString());
  });
  exitCode = await new Promise((resolve) => tap.on('close', (code) => resolve(code ?? 1)));
  failures.feed('\n');
  // A long run's log is often read from its end only: the failures are repeated there, each with
  // the file and subtests it sits in and the start of its diagnostic.
  const report = failures.report();
  if (report.length > 0) console.log(`\nFailed:\n${report.join('\n')}`);
  // tap's closing line counts assertions: `# { total: N, pass: N, fail: N, … }`.
  const counts = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?/.exec(summary);
  const passed = Number(counts?.[2] ?? 0);
  const failed = Number(counts?.[3] ?? 0) || (exitCode === 0 ? 0 : Math.max(1, Number(counts?.[1] ?? 0) - passed));
  console.log(`\n${passed} passed, ${failed} failed`);
} finally {
  await dropRunDatabases().catch((error) => console.error('cleanup failed:', error.message));
  await admin.end({ timeout: 5 });
}
process.exit(exitCode);
