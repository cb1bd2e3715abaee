import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@webpush/testing';
import postgres from 'postgres';
import t from 'tap';
import { startEmbeddedPostgres } from '../src/index.js';

const fixture = fileURLToPath(new URL('fixtures/start-and-wait.ts', import.meta.url));

/**
 * Every process of the server on `dataDir`: the postmaster and its watchdog name it on their command
 * line, and every PostgreSQL process (backends retitle themselves) works in it.
 */
async function serverProcesses(dataDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [commandLine, workingDirectory] = await Promise.all([
      readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
      readlink(`/proc/${entry}/cwd`).catch(() => ''),
    ]);
    if (commandLine.includes(dataDir) || workingDirectory === dataDir) found.push(Number(entry));
  }
  return found;
}

t.test(
  'no postgres process outlives a launcher killed with SIGKILL',
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    const scratch = await mkdtemp(join(tmpdir(), 'wp-embedded-kill-'));
    await chmod(scratch, 0o755);
    t.teardown(() => rm(scratch, { recursive: true, force: true }));
    const dataDir = join(scratch, 'data');

    const launcher = spawn(process.execPath, ['--conditions=webpush-source', '--import=tsx', fixture, dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    launcher.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const launcherExited = new Promise((resolve) => launcher.on('exit', resolve));
    await waitFor(() => output.includes('\n'), 'the launcher printed its URL', { timeoutMs: 60_000 });
    const { url } = JSON.parse(output) as { url: string };
    const sql = postgres(url, { max: 1 });
    await sql`select 1`;
    await sql.end();
    t.ok((await serverProcesses(dataDir)).length >= 3, 'the postmaster, its watchdog and its helper processes run');

    launcher.kill('SIGKILL');
    await launcherExited;
    await waitFor(
      async () => (await serverProcesses(dataDir)).length === 0,
      'no process of the data directory remains',
      {
        timeoutMs: 15_000,
      },
    );

    const next = await startEmbeddedPostgres({ dataDir });
    t.teardown(() => next.stop());
    t.notOk(next.created, 'the next start finds the data directory free and intact');
  },
);
