/**
 * Per-app fairness of webhook deliveries in one worker process: every app gets at most
 * `perAppConcurrency` attempts in flight, and a circuit breaker per endpoint (app + URL) pauses an
 * endpoint after `breakerFailures` failed attempts in a row, for `breakerPauseMs`, doubling on each
 * failed probe up to 64 times that. A delivery that may not start now is put back on the queue
 * until `retryAt` (no attempt is spent), so a receiver that hangs holds at most its own slots and
 * every other app's events keep their place.
 */
export interface WebhookFairnessOptions {
  perAppConcurrency: number;
  breakerFailures: number;
  breakerPauseMs: number;
  /** One attempt's limit: a slot held longer than this is about to be freed by the timeout. */
  attemptTimeoutMs: number;
  now?: () => number;
  random?: () => number;
}

export type SlotDecision =
  | {
      ok: true;
      /** Frees the slot; `outcome` is the attempt's, or absent when no attempt was made (an error before it). */
      release(outcome?: { ok: boolean; durationMs: number }): void;
    }
  | { ok: false; retryAt: number; reason: 'app_busy' | 'endpoint_paused' };

export interface EndpointState {
  failures: number;
  pausedUntil: number | null;
}

interface Endpoint {
  failures: number;
  pausedUntil: number;
  pauses: number;
  /** A probe after a pause is in flight: nothing else goes to this endpoint until it answers. */
  probing: boolean;
}

interface AppLoad {
  inFlight: number;
  /** When each attempt in flight started. */
  started: Set<number>;
  /** Smoothed duration of the app's attempts: how long a busy app's slot typically takes to free. */
  typicalMs: number;
}

const MAX_PAUSE_FACTOR = 64;
const MIN_WAIT_MS = 50;

export function createWebhookFairness(options: WebhookFairnessOptions) {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  // One small entry per app that has had a webhook attempt in this process.
  const apps = new Map<string, AppLoad>();
  const endpoints = new Map<string, Endpoint>();
  const endpointKey = (appId: string, url: string) => `${appId} ${url}`;
  // Spread retries so deferred deliveries do not come back all at once.
  const jittered = (waitMs: number) => now() + Math.round(Math.max(MIN_WAIT_MS, waitMs) * (1 + random()));

  function acquire(appId: string, url: string): SlotDecision {
    const key = endpointKey(appId, url);
    const endpoint = endpoints.get(key);
    if (endpoint && (endpoint.pausedUntil > now() || endpoint.probing)) {
      const waitMs = endpoint.probing ? options.attemptTimeoutMs : endpoint.pausedUntil - now();
      return { ok: false, retryAt: jittered(waitMs), reason: 'endpoint_paused' };
    }
    const load = apps.get(appId) ?? { inFlight: 0, started: new Set(), typicalMs: options.attemptTimeoutMs / 10 };
    if (load.inFlight >= options.perAppConcurrency) {
      // A slot frees after about the app's usual attempt, or later when the attempts in flight have
      // already run longer than that (a receiver that hangs): wait about as long as they have.
      const oldest = Math.min(...load.started);
      const waitMs = Math.max(load.typicalMs, now() - oldest);
      return { ok: false, retryAt: jittered(Math.min(waitMs, options.attemptTimeoutMs)), reason: 'app_busy' };
    }
    const startedAt = now();
    // Two attempts may start in the same millisecond: keep each start distinct.
    let startKey = startedAt;
    while (load.started.has(startKey)) startKey += 0.001;
    load.started.add(startKey);
    load.inFlight++;
    apps.set(appId, load);
    const probe = endpoint !== undefined && endpoint.pauses > 0;
    if (probe) endpoint.probing = true;

    let released = false;
    return {
      ok: true,
      release(outcome) {
        if (released) return;
        released = true;
        load.inFlight--;
        load.started.delete(startKey);
        if (outcome === undefined) {
          if (probe) endpoint.probing = false;
          return;
        }
        load.typicalMs = Math.round(load.typicalMs * 0.7 + outcome.durationMs * 0.3);
        record(key, outcome.ok);
      },
    };
  }

  function record(key: string, ok: boolean): void {
    if (ok) {
      endpoints.delete(key);
      return;
    }
    const endpoint = endpoints.get(key) ?? { failures: 0, pausedUntil: 0, pauses: 0, probing: false };
    endpoint.failures++;
    const probeFailed = endpoint.probing;
    endpoint.probing = false;
    if (probeFailed || endpoint.failures >= options.breakerFailures) {
      const factor = Math.min(2 ** endpoint.pauses, MAX_PAUSE_FACTOR);
      endpoint.pausedUntil = now() + options.breakerPauseMs * factor;
      endpoint.pauses++;
    }
    endpoints.set(key, endpoint);
  }

  /**
   * Brings this process's view of an endpoint in line with the state every worker shares (the
   * webhook's row): an endpoint with no failures there (recovered elsewhere, resumed, new URL) is
   * forgotten here; one failing there that this process has not seen (it restarted, or another
   * worker saw the failures) takes the shared pause, so no process hammers a paused receiver.
   */
  function adopt(appId: string, url: string, shared: { failures: number; pausedUntil: number | null }): void {
    const key = endpointKey(appId, url);
    const endpoint = endpoints.get(key);
    if (shared.failures === 0) {
      if (endpoint && !endpoint.probing) endpoints.delete(key);
      return;
    }
    const pausedUntil = shared.pausedUntil ?? 0;
    if (!endpoint) {
      // Each failure past the threshold was a failed probe, each of which doubled the pause.
      const pauses = Math.max(0, shared.failures - options.breakerFailures + 1);
      endpoints.set(key, { failures: shared.failures, pausedUntil, pauses, probing: false });
      return;
    }
    endpoint.pausedUntil = Math.max(endpoint.pausedUntil, pausedUntil);
    endpoint.failures = Math.max(endpoint.failures, shared.failures);
  }

  return {
    acquire,
    adopt,
    /** The breaker's view of one endpoint (null when it has no failure on record). */
    endpoint(appId: string, url: string): EndpointState | null {
      const endpoint = endpoints.get(endpointKey(appId, url));
      if (!endpoint) return null;
      return { failures: endpoint.failures, pausedUntil: endpoint.pausedUntil > now() ? endpoint.pausedUntil : null };
    },
    inFlight: (appId: string) => apps.get(appId)?.inFlight ?? 0,
  };
}

export type WebhookFairness = ReturnType<typeof createWebhookFairness>;
