import type { Logger } from 'pino';

export interface PeriodicTask<T> {
  /** One pass now, after any pass under way (tests and start-up use it). */
  runOnce(): Promise<T>;
  /** No new passes; resolves when the one under way has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `intervalMs`, never two at once: a pass that outlasts the interval delays the
 * next instead of overlapping it. A failed pass is logged and tried again at the next tick. The
 * timer does not keep the process alive.
 */
export function startPeriodicTask<T>(
  name: string,
  intervalMs: number,
  pass: () => Promise<T>,
  log: Logger,
): PeriodicTask<T> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      pass().catch((error: unknown) => log.error({ err: error }, `${name} pass failed; retrying next interval`)),
    );
  }, intervalMs);
  timer.unref();

  return {
    runOnce: () => {
      const next = running.then(pass);
      running = next.catch(() => undefined);
      return next;
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
