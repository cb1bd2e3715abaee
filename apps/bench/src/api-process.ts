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
  stop(): Promise<void>;
}

/**
 * The API as users run it, in a process of its own (`apps/api/src/server.ts` through tsx, or the
 * built `apps/api/dist/server.js`), on `env`: resolves once `/readyz` answers 200.
 */
export async function startApiProcess(env: Record<string, string>, entry: 'src' | 'dist'): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawnSource(entry === 'dist' ? 'apps/api/dist/server.js' : 'apps/api/src/server.ts', [], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    built: entry === 'dist',
    stdio: ['ignore', 'ignore', 'inherit'],
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
  return { url, pid: child.pid as number, stop: () => stopChild(child) };
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
): Promise<T> {
  const api = await startApiProcess(env, entry);
  try {
    return await measure(api);
  } finally {
    await api.stop();
  }
}
