import { AppError } from '@webpush/errors';

export const MAX_ALLOWED_ORIGINS = 20;

/** Scheme and authority only: no path (not even `/`), query, fragment, credentials or spaces. */
const ORIGIN_SHAPE = /^(?:https:\/\/[^/?#@\\\s]+|http:\/\/localhost(?::\d{1,5})?)$/i;
const HOSTNAME = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/;

/**
 * One entry of `allowedOrigins` in the form browsers send in `Origin`: `https://host[:port]` or
 * `http://localhost[:port]`, lower-cased, IDN hosts in punycode, the default port dropped. Anything
 * else is 400 INVALID_INPUT.
 */
export function normaliseOrigin(raw: string): string {
  if (!ORIGIN_SHAPE.test(raw)) throw new AppError('INVALID_INPUT');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('INVALID_INPUT');
  }
  const localhost = url.protocol === 'http:' && url.hostname === 'localhost';
  if ((url.protocol !== 'https:' && !localhost) || !HOSTNAME.test(url.hostname)) throw new AppError('INVALID_INPUT');
  return url.origin;
}

/** The list as stored: each entry normalised, duplicates removed, at most MAX_ALLOWED_ORIGINS. */
export function normaliseAllowedOrigins(raw: readonly string[]): string[] {
  if (raw.length > MAX_ALLOWED_ORIGINS) throw new AppError('INVALID_INPUT');
  return [...new Set(raw.map(normaliseOrigin))];
}
