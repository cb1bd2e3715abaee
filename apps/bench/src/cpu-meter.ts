import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/**
 * Where the cores went during a measurement: CPU seconds of named child processes (the sender,
 * the push stand-in…) and of this process, read from /proc, against the whole machine's busy time.
 * The rest is PostgreSQL, Redis, and anything else running on the machine at the time.
 */

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux that matters

/** utime + stime of a process in seconds; 0 when it is gone. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after `(comm)`, which may contain spaces, start at field 3; utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Busy (non-idle, non-iowait) CPU seconds of the whole machine, all cores together. */
function machineBusySeconds(): number {
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const values = ticks.map(Number);
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return (total - idle) / CLOCK_TICKS_PER_SECOND;
}

export interface CpuShare<Name extends string> {
  /** Wall-clock seconds of the measurement. */
  seconds: number;
  /** Cores used on average (CPU seconds / wall seconds) by each named process. */
  cores: Record<Name, number>;
  /** Cores used by this process (the bench, and the API when it runs here). */
  bench: number;
  /** Everything else: PostgreSQL, Redis, and whatever else shares the machine. */
  rest: number;
  /** CPU µs a unit of work (message, request) of each named process. */
  micros: Record<Name, number>;
}

/** A sending phase: the sending process and the push stand-in; `micros` per message. */
export type SendingCpu = CpuShare<'sender' | 'standIn'>;

export interface CpuMeter<Name extends string> {
  /** `units`: messages or requests done during the measurement, for the µs-per-unit figures. */
  stop(units: number): CpuShare<Name>;
}

export function startCpuMeter<Name extends string>(pids: Record<Name, number>): CpuMeter<Name> {
  const names = Object.keys(pids) as Name[];
  const started = performance.now();
  const before = new Map(names.map((name) => [name, processCpuSeconds(pids[name])]));
  const bench0 = process.cpuUsage();
  const machine0 = machineBusySeconds();
  return {
    stop(units) {
      const seconds = (performance.now() - started) / 1000;
      const used = new Map(names.map((name) => [name, processCpuSeconds(pids[name]) - (before.get(name) ?? 0)]));
      const benchUsage = process.cpuUsage(bench0);
      const bench = (benchUsage.user + benchUsage.system) / 1e6;
      const named = [...used.values()].reduce((sum, value) => sum + value, 0);
      const machine = machineBusySeconds() - machine0;
      const cores = {} as Record<Name, number>;
      const micros = {} as Record<Name, number>;
      for (const name of names) {
        const cpuSeconds = used.get(name) ?? 0;
        cores[name] = cpuSeconds / seconds;
        micros[name] = units > 0 ? (cpuSeconds * 1e6) / units : 0;
      }
      return { seconds, cores, bench: bench / seconds, rest: Math.max(0, machine - named - bench) / seconds, micros };
    },
  };
}

/** Jiffies busy and in all, over every CPU of the machine (`/proc/stat`). */
function machineJiffies(): { busy: number; total: number } {
  const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const values = fields.map(Number);
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * Waits until the whole machine is quiet, fewer than `quietCores` busy over each of two seconds in a
 * row, or `maxMs` have passed: a latency measured while PostgreSQL is still vacuuming and
 * checkpointing what an earlier phase wrote is the aftermath of that phase. Returns how long it
 * waited and the cores busy over the last second.
 */
export async function waitForQuietMachine(
  quietCores = 0.25,
  maxMs = 60_000,
): Promise<{ waitedMs: number; busyCores: number }> {
  const cores = cpus().length;
  const started = Date.now();
  let quietSeconds = 0;
  let busyCores = Number.NaN;
  while (Date.now() - started < maxMs) {
    const before = machineJiffies();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = machineJiffies();
    busyCores = (cores * (after.busy - before.busy)) / Math.max(1, after.total - before.total);
    quietSeconds = busyCores < quietCores ? quietSeconds + 1 : 0;
    if (quietSeconds >= 2) break;
  }
  return { waitedMs: Date.now() - started, busyCores };
}

/** 1-minute load average, to tell a quiet machine from a busy one. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * Several measurements of the same processes taken as one: wall time and CPU seconds add up, and
 * `micros` is spread over `units`, the work done in all of them together.
 */
export function combineCpu<Name extends string>(shares: readonly CpuShare<Name>[], units: number): CpuShare<Name> {
  const [first] = shares;
  if (!first) throw new Error('combineCpu: no measurement');
  const names = Object.keys(first.cores) as Name[];
  const seconds = shares.reduce((sum, share) => sum + share.seconds, 0);
  const cpuSeconds = (pick: (share: CpuShare<Name>) => number) =>
    shares.reduce((sum, share) => sum + pick(share) * share.seconds, 0);
  const cores = {} as Record<Name, number>;
  const micros = {} as Record<Name, number>;
  for (const name of names) {
    const used = cpuSeconds((share) => share.cores[name]);
    cores[name] = used / seconds;
    micros[name] = units > 0 ? (used * 1e6) / units : 0;
  }
  return {
    seconds,
    cores,
    bench: cpuSeconds((share) => share.bench) / seconds,
    rest: cpuSeconds((share) => share.rest) / seconds,
    micros,
  };
}
