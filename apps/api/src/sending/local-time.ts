import type { LocalGroup, ZoneCount } from '@webpush/db';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

const clocks = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of `zone` at `instant`, as the UTC milliseconds of the same digits (seconds precision). */
function wallClock(zone: string, instant: number): number {
  let clock = clocks.get(zone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    clocks.set(zone, clock);
  }
  const part: Record<string, number> = {};
  for (const { type, value } of clock.formatToParts(instant)) part[type] = Number(value);
  return Date.UTC(
    part.year ?? 1970,
    (part.month ?? 1) - 1,
    part.day ?? 1,
    part.hour ?? 0,
    part.minute ?? 0,
    part.second ?? 0,
  );
}

const offsetAt = (zone: string, instant: number) => wallClock(zone, instant) - Math.floor(instant / 1000) * 1000;

/**
 * The first instant at which `zone`'s clock shows `wall` (UTC milliseconds of the local digits):
 * the earlier one when the clock shows it twice (a fall-back hour), and the instant the clock
 * jumps past it when it never does (a spring-forward gap). `gap` says which.
 */
function instantOf(zone: string, wall: number): { at: number; gap: boolean } {
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const matches = [wall - before, wall - after].filter((at) => wallClock(zone, at) === wall);
  if (matches.length > 0) return { at: Math.min(...matches), gap: false };
  // In a gap: the clock shows less than `wall` at `low` and more at `high`; find the jump.
  let low = wall - Math.max(before, after);
  let high = wall - Math.min(before, after);
  while (high - low > 1000) {
    const middle = Math.floor((low + high) / 2000) * 1000;
    if (wallClock(zone, middle) > wall) high = middle;
    else low = middle;
  }
  return { at: high, gap: true };
}

/**
 * When a target in `zone` receives a `localTime` send accepted at `now`: the first moment at or
 * after `now` at which the zone's clock shows `hours:minutes` (during that minute: `now` itself),
 * so within 24 hours. See docs/sending.md for the daylight-saving rules.
 */
export function localDueAt(zone: string, hours: number, minutes: number, now: number): number {
  const today = wallClock(zone, now);
  const midnight = today - (today % DAY_MS);
  for (let day = 0; day <= 2; day++) {
    const { at, gap } = instantOf(zone, midnight + day * DAY_MS + hours * 3_600_000 + minutes * MINUTE_MS);
    // A time that exists lasts a minute; a skipped one is the instant of the jump.
    if (gap ? at >= now : at + MINUTE_MS > now) return Math.max(at, now);
  }
  throw new Error(`no ${hours}:${minutes} in ${zone} within two days`);
}

/**
 * Plans a `localTime` send: one group per distinct instant, holding every zone whose clock shows
 * the time then. Subscriptions without a zone take `appTimeZone`; a zone `Intl` no longer knows
 * does too.
 */
export function planLocalGroups(localTime: string, appTimeZone: string, zones: readonly ZoneCount[]): LocalGroup[] {
  const [hours, minutes] = localTime.split(':').map(Number) as [number, number];
  const now = Date.now();
  const byInstant = new Map<number, LocalGroup>();
  const dueFor = (zone: string) => {
    try {
      return localDueAt(zone, hours, minutes, now);
    } catch {
      return localDueAt(appTimeZone, hours, minutes, now);
    }
  };
  for (const { zone, targets } of zones) {
    if (targets === 0) continue;
    const at = dueFor(zone ?? appTimeZone);
    let group = byInstant.get(at);
    if (!group) {
      group = { dueAt: new Date(at), zones: [], unzoned: false, targets: 0 };
      byInstant.set(at, group);
    }
    if (zone === null) group.unzoned = true;
    else group.zones.push(zone);
    group.targets += targets;
  }
  return [...byInstant.values()].sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime());
}
