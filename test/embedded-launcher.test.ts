import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { chooseMode } from '../scripts/mode.mjs';

// How `pnpm dev` and `pnpm start` choose their mode (scripts/mode.mjs), and that `pnpm dev` leaves no
// PostgreSQL behind, stopped with Ctrl-C or killed outright.

const root = new URL('..', import.meta.url).pathname;

/** Polls `condition` until true; fails naming `what` after `timeoutMs`. */
async function waitFor(condition: () => boolean | Promise<boolean>, what: string, { timeoutMs = 30_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
t.setTimeout(600_000);

t.test('the mode: embedded with nothing set, refused when half-configured', async (t) => {
  t.equal(chooseMode({}), 'embedded');
  t.equal(chooseMode({ DATABASE_URL: '' }), 'embedded', 'an empty value is not set');
  t.equal(chooseMode({ DATABASE_URL: 'postgres://db/webpush', REDIS_URL: 'redis://r' }), 'external');
  t.equal(chooseMode({ DATABASE_URL: 'postgres://db/webpush', REDIS_CLUSTER_NODES: 'a:7000' }), 'external');
  t.equal(chooseMode({ DATABASE_URL: 'postgres://db/webpush', QUEUE_BACKEND: 'postgres' }), 'postgres-only');
  t.throws(() => chooseMode({ REDIS_URL: 'redis://r' }), {
    message: /^REDIS_URL is set but DATABASE_URL is not: set DATABASE_URL too/,
  });
  t.throws(() => chooseMode({ REDIS_CLUSTER_NODES: 'a:7000' }), {
    message: /^REDIS_CLUSTER_NODES is set but DATABASE_URL is not/,
  });
  t.throws(() => chooseMode({ DATABASE_URL: 'postgres://db/webpush' }), {
    message:
      /^DATABASE_URL is set but REDIS_URL is not: set REDIS_URL \(or REDIS_CLUSTER_NODES, or QUEUE_BACKEND=postgres/,
  });
  t.throws(
    () =>
      chooseMode({ DATABASE_URL: 'postgres://db/webpush', REDIS_CLUSTER_NODES: 'a:7000', QUEUE_BACKEND: 'postgres' }),
    { message: /^REDIS_CLUSTER_NODES cannot be used with QUEUE_BACKEND=postgres/ },
  );
});

/** Every process whose command line names `dataDir`, or that works in it (PostgreSQL's backends). */
async function processesOf(dataDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [commandLine, workingDirectory] = await Promise.all([
      readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
      readlink(`/proc/${entry}/cwd`).catch(() => ''),
    ]);
    if (commandLine.includes(dataDir) || workingDirectory.startsWith(dataDir)) found.push(Number(entry));
  }
  return found;
}

async function startDev(t: Test, dataRoot: string) {
  const port = await unusedPort();
  const workerPort = await unusedPort();
  // Its own process group, as a terminal gives `pnpm dev`: Ctrl-C reaches every process in it.
  const child: ChildProcess = spawn(process.execPath, ['--conditions=webpush-source', 'scripts/dev.mjs'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      EMBEDDED_DATA_DIR: dataRoot,
      PORT: String(port),
      WORKER_PORT: String(workerPort),
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      API_KEY_PEPPER: 'a-pepper-for-the-launcher-test-only-0123456789',
      LOG_LEVEL: 'warn',
    },
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => {
    // Whatever is left of the group this test started.
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {}
  });
  return { child, port, exited, output: () => output };
}

t.test(
  '`pnpm dev` on the embedded PostgreSQL: ready, then Ctrl-C or a SIGKILL leaves no postgres behind',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    const scratch = await mkdtemp(join(tmpdir(), 'wp-dev-'));
    // Under root the server runs as another user, who must be able to enter the scratch folder.
    await chmod(scratch, 0o755);
    t.teardown(() => rm(scratch, { recursive: true, force: true }));
    const dataRoot = join(scratch, 'data');

    const dev = await startDev(t, dataRoot);
    await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${dev.port}/readyz`).catch(() => null);
        return response?.status === 200;
      },
      'the API answers /readyz',
      { timeoutMs: 300_000 },
    );
    t.match(
      dev.output(),
      /embedded mode: PostgreSQL on 127\.0\.0\.1:\d+ \(new data in /,
      'it says which mode it runs in',
    );
    t.ok((await processesOf(dataRoot)).length > 0, 'PostgreSQL runs on the data directory');
    if (dev.child.pid) process.kill(-dev.child.pid, 'SIGINT');
    t.equal(await dev.exited, 0, 'Ctrl-C ends `pnpm dev` cleanly');
    t.strictSame(await processesOf(dataRoot), [], 'no postgres process is left');

    const again = await startDev(t, dataRoot);
    await waitFor(() => again.output().includes('embedded mode'), 'the second start says its mode', {
      timeoutMs: 120_000,
    });
    t.match(again.output(), /kept data in /, 'the data directory is kept');
    again.child.kill('SIGKILL');
    await again.exited;
    await waitFor(async () => (await processesOf(join(dataRoot, 'postgres'))).length === 0, 'postgres stops', {
      timeoutMs: 30_000,
    });
  },
);
