/** How long to wait and how often to look. */
export interface WaitOptions {
  /**
   * 30 s by default: a loaded machine (other test files on two cores) can take over 20 s to show a
   * browser notification or finish a delivery.
   */
  timeoutMs?: number;
  intervalMs?: number;
  /** Treat a probe that throws as "not yet" (a server still starting), and name its last error on time-out. */
  tolerateErrors?: boolean;
}

/**
 * Lets `ms` of real time pass on purpose: an outage's length, a slow server's reply, a retry's
 * back-off. Ends early when `signal` aborts. Never a way to wait for an outcome: that is `waitFor`.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Polls `probe` until `accept` holds for its value and returns that value; rejects, naming `what`
 * and the last value seen, when the deadline passes. Tests wait for the outcome itself, never for a
 * fixed time.
 */
export async function waitForValue<T>(
  probe: () => T | Promise<T>,
  accept: (value: T) => boolean,
  what: string,
  { timeoutMs = 30_000, intervalMs = 20, tolerateErrors = false }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (accept(value)) return value;
      last = { value };
    } catch (error) {
      if (!tolerateErrors) throw error;
      last = { error };
    }
    if (Date.now() > deadline) {
      const seen =
        last === undefined || ('value' in last && typeof last.value === 'boolean')
          ? ''
          : `; last seen: ${'error' in last ? describe(last.error) : describe(last.value)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${seen}`);
    }
    await pause(intervalMs);
  }
}

/** Resolves once `condition` holds; rejects, naming `what`, when the deadline passes. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: WaitOptions = {},
): Promise<void> {
  await waitForValue(condition, (holds) => holds, what, options);
}

/**
 * Checks that nothing happens for `ms`: `stillQuiet` (when given) must hold on every look, or this
 * rejects naming `what`. Without `stillQuiet` it only lets `ms` pass, for a check made afterwards;
 * the name says the pause is the point of the test, not a guess at how long something takes.
 */
export async function quietFor(
  ms: number,
  what: string,
  stillQuiet: () => boolean | Promise<boolean> = () => true,
  { intervalMs = 20 }: Pick<WaitOptions, 'intervalMs'> = {},
): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (!(await stillQuiet())) throw new Error(`expected ${what} for ${ms} ms, but it changed`);
    const left = end - Date.now();
    if (left <= 0) return;
    await pause(Math.min(intervalMs, left));
  }
}
