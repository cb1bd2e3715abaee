import { sql as drizzleSql, type SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database, Transaction } from '../client.js';
import type { SegmentExpression } from '../schema.js';
import { type AuditContext, recordAuditIn } from './audit-log.js';

/**
 * A segment as one SQL condition on `subscriptions s`, in template form (`strings[i]` comes before
 * `values[i]`), so the same compiled condition serves postgres.js (the fan-out's pages) and drizzle
 * (counts) with every value a parameter.
 *
 * Each leaf is written so that an index can serve it and so that it is never NULL (a NULL under
 * `not` would drop the row instead of keeping it):
 * - `tag` (has / equals / in): the GIN indexes over `tags`, which hold only subscriptions with tags,
 *   so each says `s.tags <> '{}'` too: `?` (has), `@>` (equals) and `@> any(…)` (in), all served
 *   by the jsonb_ops GIN index `subscriptions_active_tags_idx` (migration 0027);
 * - `uid`: `subscriptions_app_uid_idx`; `language`: `subscriptions_app_language_idx` on
 *   `lower(language) text_pattern_ops` (equality and the `ja-%` prefix); `timeZone`:
 *   `subscriptions_app_time_zone_idx`; `subscribedWithinDays`: `(app_id, status, created_at)`.
 *
 * The caller adds `s.app_id = … and s.status = 'active'`. The expression must have been validated
 * (the API's segment schema and limits): this trusts its shape.
 */
export interface SegmentCondition {
  strings: string[];
  values: unknown[];
}

/**
 * `reference`: the instant `subscribedWithinDays` counts back from, as ISO text; null for `now()`.
 * The fan-out passes the time its send was counted, so its pages select what was counted.
 */
export function compileSegment(expression: SegmentExpression, reference: string | null = null): SegmentCondition {
  const strings = [''];
  const values: unknown[] = [];
  const text = (part: string) => {
    strings[strings.length - 1] += part;
  };
  const value = (item: unknown, cast: string) => {
    values.push(item);
    strings.push(cast);
  };
  const join = (items: readonly SegmentExpression[], operator: string) => {
    text('(');
    items.forEach((item, i) => {
      if (i > 0) text(` ${operator} `);
      emit(item);
    });
    text(')');
  };
  const emit = (node: SegmentExpression): void => {
    if ('and' in node) join(node.and, 'and');
    else if ('or' in node) join(node.or, 'or');
    else if ('not' in node) {
      text('(not ');
      emit(node.not);
      text(')');
    } else if ('tag' in node) emitTag(node);
    else if ('uid' in node) {
      text('(s.uid is not null and s.uid = any(');
      value(node.uid, '::text[]))');
    } else if ('language' in node) {
      // The schema allows only letters, digits and `-` in a tag: nothing in it is a LIKE wildcard.
      const wanted = node.language.toLowerCase();
      text('(s.language is not null and (lower(s.language) = ');
      value(wanted, '::text or lower(s.language) like ');
      value(`${wanted}-%`, '::text))');
    } else if ('timeZone' in node) {
      text('(s.time_zone is not null and s.time_zone = ');
      value(node.timeZone, '::text)');
    } else {
      // Hours, not days: a day of the session's time zone may have 23 or 25 of them.
      text('s.created_at > ');
      if (reference === null) text('now()');
      else value(reference, '::timestamptz');
      text(" - interval '1 hour' * ");
      value(node.subscribedWithinDays * 24, '::int');
    }
  };
  const emitTag = (node: { tag: string; equals?: string; in?: string[] }) => {
    if (node.in !== undefined) {
      text(`(s.tags <> '{}'::jsonb and s.tags @> any(`);
      value(
        node.in.map((item) => JSON.stringify({ [node.tag]: item })),
        '::jsonb[]))',
      );
    } else if (node.equals !== undefined) {
      text(`(s.tags <> '{}'::jsonb and s.tags @> `);
      value(JSON.stringify({ [node.tag]: node.equals }), '::jsonb)');
    } else {
      text(`(s.tags <> '{}'::jsonb and s.tags ? `);
      value(node.tag, '::text)');
    }
  };
  emit(expression);
  return { strings, values };
}

/** The condition as a postgres.js fragment. */
export function segmentFragment(sql: postgres.Sql | postgres.TransactionSql, condition: SegmentCondition) {
  const strings = Object.assign([...condition.strings], { raw: [...condition.strings] });
  return sql(
    strings as unknown as TemplateStringsArray,
    ...(condition.values as postgres.ParameterOrFragment<never>[]),
  );
}

/** The condition as drizzle SQL (each value one parameter, arrays included). */
export function segmentSql(condition: SegmentCondition): SQL {
  const chunks: SQL[] = [];
  condition.strings.forEach((part, i) => {
    chunks.push(drizzleSql.raw(part));
    if (i < condition.values.length) chunks.push(drizzleSql`${drizzleSql.param(condition.values[i])}`);
  });
  return drizzleSql.join(chunks);
}

/**
 * The active subscriptions of `appId` a segment matches now: one statement, planned for this app
 * and these values (drizzle sends it unprepared). What a send to the segment would target.
 */
export async function countSegment(
  db: Database | Transaction,
  appId: string,
  expression: SegmentExpression,
): Promise<number> {
  const [row] = await db.execute<{ n: number }>(
    drizzleSql`select count(*)::int as n from subscriptions s
      where s.app_id = ${appId}::uuid and s.status = 'active' and ${segmentSql(compileSegment(expression))}`,
  );
  return row?.n ?? 0;
}

export interface SavedSegment {
  id: string;
  name: string;
  segment: SegmentExpression;
  createdAt: Date;
}

interface SavedSegmentRow {
  id: string;
  name: string;
  expression: SegmentExpression;
  created_at: string | Date;
}

const toSaved = (row: SavedSegmentRow): SavedSegment => ({
  id: row.id,
  name: row.name,
  segment: row.expression,
  createdAt: new Date(row.created_at),
});

export async function createSegment(
  db: Database,
  appId: string,
  name: string,
  segment: SegmentExpression,
  audit: AuditContext,
): Promise<SavedSegment> {
  return db.$client.begin(async (sql) => {
    const [row] = await sql<SavedSegmentRow[]>`
      insert into segments (app_id, name, expression) values (${appId}, ${name}, ${JSON.stringify(segment)}::jsonb)
      returning id, name, expression, created_at`;
    if (!row) throw new Error('the segment insert returned no row');
    await recordAuditIn(
      sql,
      { appId },
      { ...audit, action: 'segment.created', target: { type: 'segment', id: row.id }, details: { name } },
    );
    return toSaved(row);
  });
}

/** Oldest first. */
export async function listSegments(db: Database, appId: string): Promise<SavedSegment[]> {
  const rows = await db.$client<SavedSegmentRow[]>`
    select id, name, expression, created_at from segments where app_id = ${appId} order by created_at, id`;
  return rows.map(toSaved);
}

/** Null when `appId` has no such segment (another app's included). */
export async function findSegment(db: Database, appId: string, segmentId: string): Promise<SavedSegment | null> {
  const [row] = await db.$client<SavedSegmentRow[]>`
    select id, name, expression, created_at from segments where app_id = ${appId} and id = ${segmentId}`;
  return row ? toSaved(row) : null;
}

/**
 * Renames a saved segment or replaces its expression (either or both); null when `appId` has no
 * such segment. Sends already accepted keep the audience they were given.
 */
export async function updateSegment(
  db: Database,
  appId: string,
  segmentId: string,
  change: { name?: string; segment?: SegmentExpression },
  audit: AuditContext,
): Promise<SavedSegment | null> {
  return db.$client.begin(async (sql) => {
    const [row] = await sql<SavedSegmentRow[]>`
      update segments set
        name = coalesce(${change.name ?? null}::text, name),
        expression = coalesce(${change.segment === undefined ? null : JSON.stringify(change.segment)}::jsonb, expression)
      where app_id = ${appId} and id = ${segmentId}
      returning id, name, expression, created_at`;
    if (!row) return null;
    await recordAuditIn(
      sql,
      { appId },
      {
        ...audit,
        action: 'segment.updated',
        target: { type: 'segment', id: row.id },
        details: { name: row.name, fields: Object.keys(change).filter((key) => key === 'name' || key === 'segment') },
      },
    );
    return toSaved(row);
  });
}

export async function deleteSegment(
  db: Database,
  appId: string,
  segmentId: string,
  audit: AuditContext,
): Promise<boolean> {
  return db.$client.begin(async (sql) => {
    const [row] = await sql<{ id: string; name: string }[]>`
      delete from segments where app_id = ${appId} and id = ${segmentId} returning id, name`;
    if (!row) return false;
    await recordAuditIn(
      sql,
      { appId },
      { ...audit, action: 'segment.deleted', target: { type: 'segment', id: row.id }, details: { name: row.name } },
    );
    return true;
  });
}
