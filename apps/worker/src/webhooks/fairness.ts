import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppSlots } from './app-slots.js';

/**
 * Per-app fairness of webhook deliveries: every app gets at most `perAppConcurrency` attempts in
 * flight, across every worker process when `slots` is given (else in this process), and a circuit
 * breaker per endpoint (app + URL) pauses an endpoint after `breakerFailures` failed attempts in a
 * row, for `breakerPauseMs`, doubling on each failed probe up to 64 times that. A delivery that may
 * not start now is put back on the queue until `retryAt` (no attempt is spent), so a receiver that
 * hangs holds at most its own slots and every other app's events keep their place.
 */
export interface WebhookFairnessOptions {
  perAppConcurrency: number;
  breakerFailures: number;
  breakerPauseMs: number;
  /** One attempt's limit: a slot held longer than this is about to be freed by the timeout. */
  attemptTimeoutMs: number;
  /**
   * The app's slots as every worker process counts them. Without it (or while it cannot be reached)
   * each process counts its own: an app then gets `perAppConcurrency` attempts per process.
   */
  slots?: AppSlots;
  /** Says once that the shared count could not be reached, and once that it is back. */
  log?: Pick<Logger, 'warn' | 'info'>;
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
/** How long an attempt waits for the shared count before it goes by this process's own. */
const SHARED_TIMEOUT_MS = 2_000;

export function createWebhookFairness(options: WebhookFairnessOptions) {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  // One small entry per app that has had a webhook attempt in this process.
  const apps = new Map<string, AppLoad>();
  const endpoints = new Map<string, Endpoint>();
  const endpointKey = (appId: string, url: string) => `${appId} ${url}`;
  // Spread retries so deferred deliveries do not come back all at once.
  const jittered = (waitMs: number) => now() + Math.round(Math.max(MIN_WAIT_MS, waitMs) * (1 + random()));
  let sharedDown = false;

  /**
   * Asks the shared count for one of the app's slots: null when taken, the age of the oldest
   * attempt holding one when none is free, 'unreachable' when it did not answer in time (the
   * delivery then goes by this process's own count rather than wait or be lost).
   */
  async function takeShared(slots: AppSlots, appId: string, token: string): Promise<number | null | 'unreachable'> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        slots.take(appId, token, options.perAppConcurrency),
        // A worker's Redis connection waits for Redis forever: a delivery must not.
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer in time')), SHARED_TIMEOUT_MS);
        }),
      ]);
      if (sharedDown) {
        sharedDown = false;
        options.log?.info('webhook slots are counted across workers again');
      }
      return answer;
    } catch (error) {
      if (!sharedDown) {
        sharedDown = true;
        options.log?.warn(
          { err: error },
          'webhook slots could not be counted across workers: each worker counts its own until they can',
        );
      }
      // A late answer may still take the slot: give it back behind it, so its lease is not waited out.
      giveShared(slots, appId, token);
      return 'unreachable';
    } finally {
      clearTimeout(timer);
    }
  }

  function giveShared(slots: AppSlots, appId: string, token: string): void {
    // Not given back (the count is unreachable), the slot frees itself when its lease ends.
    slots.give(appId, token).catch(() => undefined);
  }

  function busy(load: AppLoad, sharedOldestMs: number | null): SlotDecision {
    // A slot frees after about the app's usual attempt, or later when the attempts in flight have
    // already run longer than that (a receiver that hangs): wait about as long as they have.
    const localOldestMs = load.started.size > 0 ? now() - Math.min(...load.started) : 0;
    const waitMs = Math.max(load.typicalMs, localOldestMs, sharedOldestMs ?? 0);
    return { ok: false, retryAt: jittered(Math.min(waitMs, options.attemptTimeoutMs)), reason: 'app_busy' };
  }

  async function acquire(appId: string, url: string): Promise<SlotDecision> {
    const key = endpointKey(appId, url);
    const endpoint = endpoints.get(key);
    if (endpoint && (endpoint.pausedUntil > now() || endpoint.probing)) {
      const waitMs = endpoint.probing ? options.attemptTimeoutMs : endpoint.pausedUntil - now();
      return { ok: false, retryAt: jittered(waitMs), reason: 'endpoint_paused' };
    }
    const load = apps.get(appId) ?? { inFlight: 0, started: new Set(), typicalMs: options.attemptTimeoutMs / 10 };
    // This process's own attempts count first: they hold slots of the shared count too.
    if (load.inFlight >= options.perAppConcurrency) return busy(load, null);
    const startedAt = now();
    // Two attempts may start in the same millisecond: keep each start distinct.
    let startKey = startedAt;
    while (load.started.has(startKey)) startKey += 0.001;
    // Counted before the shared count is asked, so that this process's other acquires meanwhile see it.
    load.started.add(startKey);
    load.inFlight++;
    apps.set(appId, load);
    const probe = endpoint !== undefined && endpoint.pauses > 0;
    if (probe) endpoint.probing = true;
    const forget = () => {
      load.inFlight--;
      load.started.delete(startKey);
    };

    const slots = options.slots;
    const token = randomUUID();
    if (slots) {
      const shared = await takeShared(slots, appId, token);
      if (typeof shared === 'number') {
        forget();
        if (probe) endpoint.probing = false;
        return busy(load, shared);
      }
    }

    let released = false;
    return {
      ok: true,
      release(outcome) {
        if (released) return;
        released = true;
        forget();
        if (slots) giveShared(slots, appId, token);
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
    /** This process's attempts in flight for the app. */
    inFlight: (appId: string) => apps.get(appId)?.inFlight ?? 0,
  };
}

export type WebhookFairness = ReturnType<typeof createWebhookFairness>;
