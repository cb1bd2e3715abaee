import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonLine, repoRoot, spawnSource, stopChild, waitForLine } from './child.js';

export interface WorkerProcess {
  readonly pid: number;
  /** RSS right after start-up, before any job. */
  readonly startRssMb: number;
  /** The highest RSS sampled (every 100 ms) since start. */
  peakRssMb(): number;
  /** The kernel's own high-water mark of the RSS (VmHWM), start-up included. */
  highWaterMarkMb(): number;
  stop(): Promise<void>;
  /** Its warning and error log lines so far (the last 500). */
  warnings(): string[];
  /** SIGKILL, as a crash would: no job is finished or handed back. Resolves when it has exited. */
  kill(): Promise<void>;
}

const PINO_WARN = 40;

/** `VmRSS` / `VmHWM` of a process, in MB; 0 once it is gone. */
function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]) / 1024;
  } catch {
    return 0;
  }
}

/** The worker's sources through tsx, its build, or the bench's no-op-sender worker (`noop-worker.ts`, sources). */
export type WorkerEntry = 'src' | 'dist' | 'noop';

const WORKER_NODE_FLAG = '--max-semi-space-size=8';

const ENTRY_SCRIPTS: Record<WorkerEntry, string> = {
  src: 'apps/worker/src/main.ts',
  dist: 'apps/worker/dist/main.js',
  noop: 'apps/bench/src/noop-worker.ts',
};

/**
 * Starts the worker (apps/worker/src/main.ts, its build, or the no-op worker) as a child configured by `env` only,
 * as `pnpm start:worker` is; waits for its 'worker ready' log line, and samples its RSS every
 * 100 ms until it stops.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  entry: WorkerEntry,
  cpuProfileDir: string | null,
  /** Keep its warnings (see `warnings()`) instead of printing them: the recovery phases expect some. */
  quiet = false,
): Promise<WorkerProcess> {
  if (entry === 'dist' && !existsSync(join(repoRoot, ENTRY_SCRIPTS.dist))) {
    throw new Error(`the built worker (${ENTRY_SCRIPTS.dist}) is missing: run \`pnpm build\` first`);
  }
  const child = spawnSource(ENTRY_SCRIPTS[entry], [], {
    env,
    built: entry === 'dist',
    // As `pnpm start:worker` runs it (docs/configuration.md).
    nodeFlags: [WORKER_NODE_FLAG, ...(cpuProfileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`])],
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.pid === undefined) throw new Error('could not start the worker');
  const pid = child.pid;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, procStatusMb(pid, 'VmRSS'));
  }, 100);
  try {
    await waitForLine(child, (line) => (jsonLine(line)?.msg === 'worker ready' ? true : undefined), 60_000, 'worker');
  } catch (error) {
    clearInterval(sampler);
    await stopChild(child, 'SIGKILL');
    throw error;
  }
  // Its warnings and errors (failed jobs, connection trouble) are worth seeing; info lines are not.
  let partial = '';
  const warnings: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const level = jsonLine(line)?.level;
      if (typeof level === 'number' && level >= PINO_WARN) {
        if (!quiet) process.stderr.write(`[worker] ${line}\n`);
        warnings.push(line);
        if (warnings.length > 500) warnings.shift();
      }
    }
  });
  const startRssMb = procStatusMb(pid, 'VmRSS');
  peak = Math.max(peak, startRssMb);
  let highWaterMark = 0;
  let stopped = false;

  return {
    pid,
    startRssMb,
    peakRssMb: () => peak,
    highWaterMarkMb: () => (stopped ? highWaterMark : procStatusMb(pid, 'VmHWM')),
    warnings: () => [...warnings],
    async stop() {
      if (stopped) return;
      stopped = true;
      highWaterMark = procStatusMb(pid, 'VmHWM');
      clearInterval(sampler);
      await stopChild(child, 'SIGTERM');
    },
    async kill() {
      if (stopped) return;
      stopped = true;
      highWaterMark = procStatusMb(pid, 'VmHWM');
      clearInterval(sampler);
      await stopChild(child, 'SIGKILL');
    },
  };
}
