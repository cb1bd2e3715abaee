import { AppError } from '@webpush/errors';

/** Names already resolved: a subscribe asks `Intl` once per distinct zone, not once per request. */
const known = new Map<string, string>();
/** The IANA database has about 600 names and links; anything beyond that in the cache is not needed. */
const MAX_KNOWN = 2_000;

/**
 * The zone as the runtime's `Intl` names it (`Etc/UTC` → `UTC`, `asia/tokyo` → `Asia/Tokyo`), so
 * a segment's `timeZone` and a subscription's compare equal; INVALID_INPUT for a name `Intl` does
 * not know. The runtime's own list, not a copy of it: a Node.js upgrade brings new zones along.
 */
export function canonicalTimeZone(name: string): string {
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  // Offsets (`+09:00`) are not IANA names, though newer runtimes accept them as time zones.
  if (!/^[A-Za-z]/.test(name)) throw new AppError('INVALID_INPUT');
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new AppError('INVALID_INPUT');
  }
  if (known.size < MAX_KNOWN) known.set(name, canonical);
  return canonical;
}
