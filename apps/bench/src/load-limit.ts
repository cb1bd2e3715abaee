import type { HttpLoad } from './http-load.js';

/** A timed load's allowance beyond its warm-up second and its window: to finish, print its result and exit. */
const TIMED_GRACE_MS = 31_000;

/**
 * A counted load that answers no block within this long is stuck, whatever its total: 5,000 new
 * subscriptions at 32 connections take ~1 s with the per-app cap off and ~10–20 s with it on here
 * (each capped subscribe is stored alone), so this leaves room for a far slower machine.
 */
export const BLOCK_STALL_MS = 120_000;

/**
 * How long the load client may go without a sign of progress before it is killed. A timed load
 * (`seconds`): its warm-up second, its window and a grace, once. A counted load (`count`) has no end
 * known in advance, as its rate is what it measures (1,000,000 subscribes take ~3 minutes with the
 * per-app cap off and over half an hour with it on): each block it answers restarts the clock, so a
 * slow run completes and only a stuck one is cut short. (A fixed 631 s for every counted load once
 * killed the cap-on run to 1,000,000 long before its end.)
 */
export function loadStallLimitMs(load: Pick<HttpLoad, 'seconds' | 'count'>): number {
  return load.count ? BLOCK_STALL_MS : load.seconds * 1000 + TIMED_GRACE_MS;
}

export interface Watchdog {
  /** A sign of progress: the clock starts again. */
  progress(): void;
  stop(): void;
  /** Whether it ran out, and so called `onExpire`. */
  readonly expired: boolean;
}

/** Calls `onExpire` once `limitMs` passes without `progress()`, counted from the start or the last `progress()`. */
export function startWatchdog(limitMs: number, onExpire: () => void): Watchdog {
  let expired = false;
  let stopped = false;
  const expire = () => {
    expired = true;
    onExpire();
  };
  let timer = setTimeout(expire, limitMs);
  return {
    progress() {
      if (expired || stopped) return;
      clearTimeout(timer);
      timer = setTimeout(expire, limitMs);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    get expired() {
      return expired;
    },
  };
}
