import { type AnyColumn, type SQL, sql } from 'drizzle-orm';

/**
 * Keyset (cursor) pagination on `(created_at, id)`, newest first: a page is "the next `limit` rows
 * before this position", an index range scan whatever the page number, never an OFFSET.
 */
export interface KeysetPosition {
  /** `created_at` to the microsecond (a JS Date would round it to the millisecond and skip rows). */
  createdAt: string;
  id: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const POSITION =
  /^([1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export const encodeCursor = (position: KeysetPosition): string =>
  Buffer.from(`${position.createdAt}|${position.id}`, 'utf8').toString('base64url');

/** The position a cursor stands for, or null when it is not one this service made (→ INVALID_INPUT). */
export function decodeCursor(cursor: string): KeysetPosition | null {
  if (cursor.length === 0 || cursor.length > 128 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1] || !match[2]) return null;
  // A calendar date that does not exist (2026-02-30) would make PostgreSQL fail the query.
  const millis = `${match[1].slice(0, 23)}Z`;
  const parsed = new Date(millis);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString() !== millis) return null;
  return { createdAt: match[1], id: match[2] };
}

export const cursorTimestamp = (createdAt: AnyColumn) =>
  sql<string>`to_char(${createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows strictly after `position` in `(created_at desc, id desc)` order: one row comparison the index serves. */
export const beforePosition = (createdAt: AnyColumn, id: AnyColumn, position: KeysetPosition): SQL =>
  sql`(${createdAt}, ${id}) < (${position.createdAt}::timestamptz, ${position.id}::uuid)`;

export function toPage<T extends { id: string; cursorAt: string }>(
  rows: T[],
  limit: number,
): Page<Omit<T, 'cursorAt'>> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept.at(-1);
  return {
    items: kept.map(({ cursorAt: _cursorAt, ...item }) => item),
    nextCursor: more && last ? encodeCursor({ createdAt: last.cursorAt, id: last.id }) : null,
  };
}
