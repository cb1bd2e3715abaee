import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { jsonLine, spawnSource, stopChild } from './child.js';
import { type CpuMeter, type SendingCpu, startCpuMeter } from './cpu-meter.js';
import type { SenderJob, SenderRun } from './sender-child.js';

export interface SenderMeasurement {
  runs: SenderRun[];
  /** From the first run's start to the last run's end (module loading excluded). */
  cpu: SendingCpu;
}

/**
 * Runs sender-child.ts (web-push or the bare sender) in a process of its own that trusts the
 * stand-in through NODE_EXTRA_CA_CERTS, as the worker does; one result per run.
 */
export async function runSenderProcess(
  job: SenderJob,
  workDir: string,
  standIn: { certPath: string; pid: number },
  cpuProfileDir: string | null,
): Promise<SenderMeasurement> {
  const jobPath = join(workDir, `${job.mode}-job.json`);
  writeFileSync(jobPath, JSON.stringify(job));
  const child = spawnSource('sender-child.ts', [jobPath], {
    env: { NODE_EXTRA_CA_CERTS: standIn.certPath },
    nodeFlags: cpuProfileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`],
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // Bounded: a minute to start, then 20 ms a message per run (web-push takes about 1 ms on a quiet
  // machine; 50 sends/s was seen at load average 40 on 2 cores).
  const timeoutMs = 60_000 + job.runs * job.targets.length * 20;
  const timer = setTimeout(() => void stopChild(child, 'SIGKILL'), timeoutMs);

  const runs: SenderRun[] = [];
  let meter: CpuMeter<'sender' | 'standIn'> | null = null;
  let cpu: SendingCpu | null = null;
  if (!child.stdout || child.pid === undefined) throw new Error(`${job.mode} sender did not start`);
  const pid = child.pid;
  for await (const line of createInterface({ input: child.stdout })) {
    const value = jsonLine(line);
    if (value?.ready === true) meter = startCpuMeter({ sender: pid, standIn: standIn.pid });
    if (typeof value?.sent !== 'number') continue;
    runs.push(value as unknown as SenderRun);
    if (runs.length === job.runs) cpu = meter?.stop(runs.reduce((sum, run) => sum + run.sent + run.failed, 0)) ?? null;
  }
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0 || runs.length !== job.runs || cpu === null) {
    throw new Error(
      `${job.mode} sender: exit code ${code}, ${runs.length} of ${job.runs} runs (limit ${timeoutMs} ms)`,
    );
  }
  return { runs, cpu };
}
