import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root: children run from here, so `--import tsx` resolves like `pnpm bench` does. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Node flags that run a workspace's TypeScript sources directly, as scripts/test.mjs does. */
export const sourceFlags = ['--conditions=webpush-source', '--import', 'tsx'];

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  stdio?: StdioOptions;
  /** Extra Node flags before the script (e.g. `--cpu-prof`). */
  nodeFlags?: string[];
  /** A built `.js` entry: plain Node, without the TypeScript loader. */
  built?: boolean;
}

/** Starts `script` (a path from the repository root, or a file of this package by name) as a Node child. */
export function spawnSource(script: string, args: string[] = [], options: SpawnOptions = {}): ChildProcess {
  const path = script.includes('/') ? script : fileURLToPath(new URL(`./${script}`, import.meta.url));
  const flags = options.built ? [] : sourceFlags;
  return spawn(process.execPath, [...flags, ...(options.nodeFlags ?? []), path, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env },
    stdio: options.stdio ?? ['ignore', 'pipe', 'inherit'],
  });
}

/** Resolves with the first stdout line `accept` returns a value for; rejects on exit or after `timeoutMs`. */
export function waitForLine<T>(
  child: ChildProcess,
  accept: (line: string) => T | undefined,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let buffered = '';
    const finish = (error: Error | null, value?: T) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value as T);
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const value = accept(line);
        if (value !== undefined) return finish(null, value);
        newline = buffered.indexOf('\n');
      }
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`${what}: the process exited (code ${code}, signal ${signal}) before it was ready`));
    const timer = setTimeout(() => finish(new Error(`${what}: not ready within ${timeoutMs} ms`)), timeoutMs);
    child.stdout?.on('data', onData);
    child.on('exit', onExit);
  });
}

/** Parses a line as a JSON object; undefined for anything else (log lines of other shapes). */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Sends `signal` to the child and waits for it to exit; SIGKILL after `timeoutMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 35_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

/** Runs a child to completion and collects its stdout; rejects on a non-zero exit or after `timeoutMs`. */
export async function runToCompletion(child: ChildProcess, timeoutMs: number, what: string): Promise<string> {
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
    // 'close', not 'exit': stdout is fully read by then.
    child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
  );
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${what} failed (code ${code}, signal ${signal}; limit ${timeoutMs} ms)`);
  return stdout;
}
