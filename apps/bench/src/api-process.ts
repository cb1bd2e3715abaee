import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { spawnSource, stopChild } from './child.js';

/** A loopback port free at the moment of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ApiProcess {
  url: string;
  pid: number;
  /** With `stdout: 'pipe'`: the lines the process has written to its stdout so far. */
  stdoutLines(): number;
  stop(): Promise<void>;
}

export interface ApiProcessOptions {
  /**
   * Where the process's stdout (its log) goes: `/dev/null` (the default), or a pipe this process
   * reads and counts lines from, as a process manager (`pnpm start`, Docker, systemd) reads it.
   */
  stdout?: 'ignore' | 'pipe';
  /** Node flags before the entry (e.g. `--cpu-prof`). */
  nodeFlags?: string[];
}

/**
 * The API as users run it, in a process of its own (`apps/api/src/server.ts` through tsx, or the
 * built `apps/api/dist/server.js`), on `env`: resolves once `/readyz` answers 200.
 */
export async function startApiProcess(
  env: Record<string, string>,
  entry: 'src' | 'dist',
  options: ApiProcessOptions = {},
): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawnSource(entry === 'dist' ? 'apps/api/dist/server.js' : 'apps/api/src/server.ts', [], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    built: entry === 'dist',
    nodeFlags: options.nodeFlags,
    stdio: ['ignore', options.stdout ?? 'ignore', 'inherit'],
  });
  let lines = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the API process exited (${child.exitCode})`);
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error('the API process was not ready within 120 s');
    }
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid as number, stdoutLines: () => lines, stop: () => stopChild(child) };
}

/** Resident memory of process `pid` in bytes (Linux: /proc/<pid>/statm, in pages of 4 KiB). */
export function rssOf(pid: number): number {
  const resident = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
  return resident * 4096;
}

/** Runs `measure` against an API process of its own (see `startApiProcess`), stopped after it. */
export async function withApiProcess<T>(
  env: Record<string, string>,
  entry: 'src' | 'dist',
  measure: (api: ApiProcess) => Promise<T>,
  options: ApiProcessOptions = {},
): Promise<T> {
  const api = await startApiProcess(env, entry, options);
  try {
    return await measure(api);
  } finally {
    await api.stop();
  }
}
