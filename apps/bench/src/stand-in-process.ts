import { readFileSync } from 'node:fs';
import { jsonLine, spawnSource, stopChild, waitForLine } from './child.js';
import type { StandInStats } from './push-stand-in.js';

export interface PushStandIn {
  readonly pid: number;
  readonly port: number;
  /** `https://localhost:<port>` */
  readonly origin: string;
  /** The `PUSH_SERVICE_HOSTS` entry that allows it. */
  readonly hostRule: string;
  /** For `NODE_EXTRA_CA_CERTS` of the processes that send. */
  readonly certPath: string;
  /** The same certificate as PEM, for an in-process sender's `ca`. */
  readonly caPem: string;
  readonly verifyEvery: number;
  readonly delayMs: number;
  stats(): Promise<StandInStats>;
  /** Starts a new `firstSinceMark`. */
  mark(): void;
  close(): Promise<void>;
}

/** Starts push-stand-in.ts as a child process and waits until it listens. */
export async function startPushStandIn(options: {
  keySeed: Buffer;
  keyPoolSize: number;
  verifyEvery: number;
  delayMs: number;
}): Promise<PushStandIn> {
  const child = spawnSource('push-stand-in.ts', [], {
    env: {
      BENCH_KEY_SEED: options.keySeed.toString('hex'),
      BENCH_KEY_POOL: String(options.keyPoolSize),
      BENCH_VERIFY_EVERY: String(options.verifyEvery),
      BENCH_PUSH_DELAY_MS: String(options.delayMs),
    },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  if (child.pid === undefined) throw new Error('could not start the push stand-in');
  const pid = child.pid;
  let ready: { port: number; certPath: string };
  try {
    ready = await waitForLine(
      child,
      (line) => {
        const value = jsonLine(line);
        return typeof value?.port === 'number' && typeof value.certPath === 'string'
          ? { port: value.port, certPath: value.certPath }
          : undefined;
      },
      30_000,
      'push stand-in',
    );
  } catch (error) {
    await stopChild(child, 'SIGKILL');
    throw error;
  }
  child.stdout?.resume();

  // The child answers each `stats` request in order: the answers go to the callers in the order they
  // asked, so callers polling at once each get the snapshot of their own request.
  const waiting: ((stats: StandInStats) => void)[] = [];
  child.on('message', (message: unknown) => waiting.shift()?.(message as StandInStats));

  return {
    pid,
    port: ready.port,
    origin: `https://localhost:${ready.port}`,
    hostRule: `localhost:${ready.port}`,
    certPath: ready.certPath,
    caPem: readFileSync(ready.certPath, 'utf8'),
    verifyEvery: options.verifyEvery,
    delayMs: options.delayMs,
    stats: () =>
      new Promise<StandInStats>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('push stand-in: no stats within 10 s')), 10_000);
        waiting.push((stats) => {
          clearTimeout(timer);
          resolve(stats);
        });
        child.send({ type: 'stats' });
      }),
    mark: () => child.send({ type: 'mark' }),
    close: () => stopChild(child, 'SIGTERM', 5_000),
  };
}
