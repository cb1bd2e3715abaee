import { readFileSync } from 'node:fs';

/**
 * Where the two cores went during a measurement: CPU seconds of the sending process, the push
 * stand-in and this process, read from /proc, against the whole machine's busy time (the rest is
 * PostgreSQL, Redis, and anything else running on the machine at the time).
 */

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux that matters

/** utime + stime of a process in seconds; 0 when it is gone. */
function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the `(comm)`, which may contain spaces: state is field 3, utime 14, stime 15.
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

export interface CpuShare {
  /** Wall-clock seconds of the measurement. */
  seconds: number;
  /** Cores used on average (CPU seconds / wall seconds). */
  sender: number;
  standIn: number;
  bench: number;
  /** Everything else: PostgreSQL, Redis, and whatever else shares the machine. */
  rest: number;
  /** CPU µs a message of the sending process and of the stand-in. */
  senderMicrosPerMessage: number;
  standInMicrosPerMessage: number;
}

export interface CpuMeter {
  stop(messages: number): CpuShare;
}

export function startCpuMeter(senderPid: number, standInPid: number): CpuMeter {
  const started = performance.now();
  const sender0 = processCpuSeconds(senderPid);
  const standIn0 = processCpuSeconds(standInPid);
  const bench0 = process.cpuUsage();
  const machine0 = machineBusySeconds();
  return {
    stop(messages) {
      const seconds = (performance.now() - started) / 1000;
      const sender = processCpuSeconds(senderPid) - sender0;
      const standIn = processCpuSeconds(standInPid) - standIn0;
      const benchUsage = process.cpuUsage(bench0);
      const bench = (benchUsage.user + benchUsage.system) / 1e6;
      const machine = machineBusySeconds() - machine0;
      const perMessage = (cpuSeconds: number) => (messages > 0 ? (cpuSeconds * 1e6) / messages : 0);
      return {
        seconds,
        sender: sender / seconds,
        standIn: standIn / seconds,
        bench: bench / seconds,
        rest: Math.max(0, machine - sender - standIn - bench) / seconds,
        senderMicrosPerMessage: perMessage(sender),
        standInMicrosPerMessage: perMessage(standIn),
      };
    },
  };
}

/** 1-minute load average, to tell a quiet machine from a busy one. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
