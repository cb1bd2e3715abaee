#!/usr/bin/env node
// `pnpm smoke:embedded`: the embedded mode proved end to end, as CI runs it (.ci/run). Builds (turbo
// caches it, so the `pnpm test` after it builds nothing), then runs scripts/embedded-smoke-run.ts:
// under root twice, each time in a fresh network namespace with only loopback up (the machine's
// PostgreSQL and Redis cannot be reached there), first as root and then as an unprivileged user
// (SMOKE_USER, default `nobody`); under any other user once, as that user, without a namespace.
// Exits 1 when a run fails.
import { spawnSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const runner = [process.execPath, '--import', 'tsx', 'scripts/embedded-smoke-run.ts'];
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function run(label, command) {
  console.log(`\n[smoke] ${label}`);
  const at = Date.now();
  const { status, error } = spawnSync(command[0], command.slice(1), { cwd: root, stdio: 'inherit' });
  if (error) console.log(`[smoke] cannot run ${command[0]}: ${error.message}`);
  return { ok: status === 0, ms: Date.now() - at };
}

const build = spawnSync(`${root}node_modules/.bin/turbo`, ['run', 'build', '--output-logs=errors-only'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) {
  console.log('[smoke] FAILED  the build: fix the errors above first');
  process.exit(1);
}

const results = [];
if (process.getuid?.() === 0) {
  const probe = spawnSync('unshare', ['--net', '--', 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    console.log(
      `[smoke] FAILED  no network namespace (unshare --net; ip link set lo up): ${(probe.stderr || probe.error?.message || '').trim()}`,
    );
    process.exit(1);
  }
  // PostgreSQL (run as `postgres`, never as root) and the unprivileged run must reach the checkout:
  // a clone made in a private directory (mktemp -d is 0700) gets the search bit (o+x) on each
  // directory above it that lacks it, and nothing more (nothing becomes readable by others).
  for (let dir = root.replace(/\/$/, ''); dir !== dirname(dir); dir = dirname(dir)) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, (mode & 0o7777) | 0o001);
      console.log(
        `[smoke] ${dir}: added o+x so the postgres and ${process.env.SMOKE_USER || 'nobody'} users can reach the checkout`,
      );
    }
  }
  // A fresh namespace has loopback down: bring it up, then run the checks in it.
  const isolated = (inner) => ['unshare', '--net', '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...inner];
  results.push(['root', run('as root, in a network namespace', isolated([...runner, '--isolated']))]);
  const user = process.env.SMOKE_USER || 'nobody';
  const asUser = ['runuser', '-u', user, '--', 'env', `PATH=${process.env.PATH}`, 'HOME=/tmp', `USER=${user}`];
  results.push([user, run(`as ${user}, in a network namespace`, isolated([...asUser, ...runner, '--isolated']))]);
} else {
  const user = process.env.USER || `uid ${process.getuid?.()}`;
  results.push([user, run(`as ${user} (not root: no network namespace)`, runner)]);
}

console.log('');
for (const [user, { ok, ms }] of results)
  console.log(`[smoke] ${ok ? 'passed' : 'FAILED'} as ${user} in ${seconds(ms)}`);
process.exit(results.every(([, { ok }]) => ok) ? 0 : 1);
