import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { jsonLine, spawnSource, stopChild } from './child.js';
import { type SendingCpu, startCpuMeter } from './cpu-meter.js';
import type { SenderJob, SenderRun } from './sender-child.js';

export interface SenderRound {
  run: SenderRun;
  /** This run alone, from the command to its result line. */
  cpu: SendingCpu;
}

export interface SenderProcess {
  readonly pid: number;
  /** One run over every target; rejects when the process exits or exceeds the time limit. */
  round(): Promise<SenderRound>;
  /** Ends its stdin and waits for it to close its connections and exit. */
  stop(): Promise<void>;
}

/**
 * Starts sender-child.ts (web-push or the bare sender) in a process of its own that trusts the
 * stand-in through NODE_EXTRA_CA_CERTS, as the worker does, and runs it one round at a time, so
 * that the bench can put a worker's run between two of its rounds.
 */
export async function startSenderProcess(
  job: SenderJob,
  workDir: string,
  standIn: { certPath: string; pid: number },
  cpuProfileDir: string | null,
): Promise<SenderProcess> {
  const jobPath = join(workDir, `${job.mode}-job.json`);
  writeFileSync(jobPath, JSON.stringify(job));
  const child = spawnSource('sender-child.ts', [jobPath], {
    env: { NODE_EXTRA_CA_CERTS: standIn.certPath },
    nodeFlags: cpuProfileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`],
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (!child.stdout || !child.stdin || child.pid === undefined) throw new Error(`${job.mode} sender did not start`);
  const { pid, stdin } = child;
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code) => {
      exitCode = code;
      resolve();
    }),
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  /** The next JSON line of the child, or why there is none within `timeoutMs`. */
  const nextValue = async (timeoutMs: number, waitingFor: string): Promise<Record<string, unknown>> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void stopChild(child, 'SIGKILL');
        reject(new Error(`${job.mode} sender: no ${waitingFor} within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      for (;;) {
        const next = await Promise.race([lines.next(), timedOut]);
        if (next.done) throw new Error(`${job.mode} sender exited (code ${exitCode}) while waiting for ${waitingFor}`);
        const value = jsonLine(next.value);
        if (value) return value;
      }
    } finally {
      clearTimeout(timer);
    }
  };

  await nextValue(60_000, 'ready line');
  return {
    pid,
    async round() {
      const meter = startCpuMeter({ sender: pid, standIn: standIn.pid });
      stdin.write('run\n');
      // Bounded: 20 ms a message (web-push takes about 1 ms on a quiet machine; 50 sends/s was seen
      // at load average 40 on 2 cores).
      const value = await nextValue(10_000 + job.targets.length * 20, 'result line');
      if (typeof value.sent !== 'number')
        throw new Error(`${job.mode} sender: unexpected line ${JSON.stringify(value)}`);
      const run = value as unknown as SenderRun;
      return { run, cpu: meter.stop(run.sent + run.failed) };
    },
    async stop() {
      stdin.end();
      const timer = setTimeout(() => void stopChild(child, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      if (exitCode !== 0) throw new Error(`${job.mode} sender: exit code ${exitCode}`);
    },
  };
}
