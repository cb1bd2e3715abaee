import { and, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Database, Transaction } from '../client.js';
import { isUuid } from '../ids.js';
import { apps, auditLog } from '../schema.js';
import { beforePosition, cursorTimestamp, type KeysetPosition, type Page, toPage } from './pagination.js';

/** Who made a change: a signed-in user (session or personal access token), an API key, or an operator. */
export type AuditActor =
  | { type: 'user'; id: string; email: string }
  | { type: 'key'; id: string }
  | { type: 'operator'; id: string };

/** The operator id of `pnpm admin`, which runs with database access and no account. */
export const ADMIN_CLI_OPERATOR = 'admin-cli';

/**
 * The actions recorded (docs/security.md, "Audit log"). App logs: the first group; account logs:
 * the second; operators' changes of an account appear in both.
 */
export type AuditAction =
  | 'app.updated'
  | 'key.created'
  | 'key.revoked'
  | 'vapid_key.rotated'
  | 'identity_secret.created'
  | 'webhook.updated'
  | 'webhook.deleted'
  | 'webhook.secret_rotated'
  | 'member.invited'
  | 'member.joined'
  | 'member.role_changed'
  | 'member.removed'
  | 'segment.created'
  | 'segment.updated'
  | 'segment.deleted'
  | 'subscribers.imported'
  | 'subscribers.keys_exported'
  | 'subscribers.erased'
  | 'session.created'
  | 'password.changed'
  | 'password.reset'
  | 'totp.enabled'
  | 'totp.disabled'
  | 'token.created'
  | 'token.revoked'
  | 'account.plan_changed'
  | 'account.suspended'
  | 'account.resumed'
  | 'account.deleted';

export interface AuditTarget {
  type: string;
  id: string | null;
}

/** What a request knows about a change it makes: handed to the repository that records it. */
export interface AuditContext {
  actor: AuditActor;
  /** The client's address as the API saw it; null outside a request (`pnpm admin`). */
  ip: string | null;
}

export interface AuditEntryInput extends AuditContext {
  action: AuditAction;
  target?: AuditTarget | null;
  /**
   * Non-secret facts about the change (a key's name and scope, the fields an update set). Never a
   * secret, token, password or the erased data itself.
   */
  details?: Record<string, unknown>;
}

/** Whose log an entry joins: one app's, or one account's own. */
export type AuditLogOf = { appId: string } | { userId: string };

const columns = (of: AuditLogOf, entry: AuditEntryInput) => ({
  appId: 'appId' in of ? of.appId : null,
  userId: 'userId' in of ? of.userId : null,
  actorType: entry.actor.type,
  actorId: entry.actor.id,
  actorEmail: entry.actor.type === 'user' ? entry.actor.email : null,
  action: entry.action,
  targetType: entry.target?.type ?? null,
  targetId: entry.target?.id ?? null,
  details: entry.details ?? {},
  ip: entry.ip,
});

/**
 * Appends one entry to `of`'s log. Call it inside the transaction of the change it records, as
 * its one extra statement: the entry commits with the change, and a change that rolls back leaves
 * none. (Given the database handle instead of a transaction it is a statement of its own.)
 */
export async function recordAudit(db: Database | Transaction, of: AuditLogOf, entry: AuditEntryInput): Promise<void> {
  await db.insert(auditLog).values(columns(of, entry));
}

/**
 * `recordAudit` for a transaction of postgres.js itself (`sql.begin`), where a repository works
 * below drizzle: the same row, written as that transaction's one extra statement.
 */
export async function recordAuditIn(
  sql: postgres.TransactionSql | postgres.Sql,
  of: AuditLogOf,
  entry: AuditEntryInput,
): Promise<void> {
  const row = columns(of, entry);
  await sql`
    insert into audit_log (app_id, user_id, actor_type, actor_id, actor_email, action, target_type, target_id, details, ip)
    values (${row.appId}, ${row.userId}, ${row.actorType}, ${row.actorId}, ${row.actorEmail}, ${row.action},
      ${row.targetType}, ${row.targetId}, ${JSON.stringify(row.details)}::jsonb, ${row.ip})`;
}

/**
 * Appends the entry to the log of every app `ownerId` owns and to the account's own log, in one
 * statement: what an operator does to an account (plan, suspension) shows wherever its people look.
 */
export async function recordAccountAudit(
  db: Database | Transaction,
  ownerId: string,
  entry: AuditEntryInput,
): Promise<void> {
  const row = columns({ userId: ownerId }, entry);
  await db.execute(sql`
    insert into ${auditLog} (app_id, user_id, actor_type, actor_id, actor_email, action, target_type, target_id, details, ip)
    select id, null, ${row.actorType}, ${row.actorId}, ${row.actorEmail}, ${row.action}, ${row.targetType},
      ${row.targetId}, ${JSON.stringify(row.details)}::jsonb, ${row.ip}
    from ${apps} where ${apps.userId} = ${ownerId}
    union all
    select null, ${ownerId}::uuid, ${row.actorType}, ${row.actorId}, ${row.actorEmail}, ${row.action}, ${row.targetType},
      ${row.targetId}, ${JSON.stringify(row.details)}::jsonb, ${row.ip}`);
}

export interface AuditEntry {
  id: string;
  at: Date;
  actor: AuditActor;
  action: string;
  target: AuditTarget | null;
  details: Record<string, unknown>;
  ip: string | null;
}

type AuditRow = typeof auditLog.$inferSelect;

const toActor = (row: Pick<AuditRow, 'actorType' | 'actorId' | 'actorEmail'>): AuditActor =>
  row.actorType === 'user'
    ? { type: 'user', id: row.actorId, email: row.actorEmail ?? '' }
    : { type: row.actorType, id: row.actorId };

/**
 * A page of `of`'s log, newest first (keyset on `(at, id)`, served by the log's partial indexes).
 * The caller has checked that the log is the caller's to read.
 */
export async function listAuditLog(
  db: Database,
  of: AuditLogOf,
  page: { limit: number; after: KeysetPosition | null },
  /** Only entries of this action, and/or by this actor id (a user, an API key, `admin-cli`). */
  filter: { action?: string | undefined; actorId?: string | undefined } = {},
): Promise<Page<AuditEntry>> {
  const ownerId = 'appId' in of ? of.appId : of.userId;
  if (!isUuid(ownerId)) return { items: [], nextCursor: null };
  const owner =
    'appId' in of
      ? and(isNotNull(auditLog.appId), eq(auditLog.appId, of.appId))
      : and(isNotNull(auditLog.userId), eq(auditLog.userId, of.userId));
  const rows = await db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      cursorAt: cursorTimestamp(auditLog.at),
      actorType: auditLog.actorType,
      actorId: auditLog.actorId,
      actorEmail: auditLog.actorEmail,
      action: auditLog.action,
      targetType: auditLog.targetType,
      targetId: auditLog.targetId,
      details: auditLog.details,
      ip: auditLog.ip,
    })
    .from(auditLog)
    .where(
      and(
        owner,
        filter.action === undefined ? undefined : eq(auditLog.action, filter.action),
        filter.actorId === undefined ? undefined : eq(auditLog.actorId, filter.actorId),
        page.after ? beforePosition(auditLog.at, auditLog.id, page.after) : undefined,
      ),
    )
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(page.limit + 1);
  const { items, nextCursor } = toPage(rows, page.limit);
  return {
    items: items.map((row) => ({
      id: row.id,
      at: row.at,
      actor: toActor(row),
      action: row.action,
      target: row.targetType === null ? null : { type: row.targetType, id: row.targetId },
      details: row.details,
      ip: row.ip,
    })),
    nextCursor,
  };
}

/**
 * Retention of the log: entries older than `days` go, `batchSize` at a time. Never fewer than 365
 * days, whatever is asked: the table's trigger refuses younger rows anyway.
 */
export async function deleteExpiredAuditEntries(db: Database, days: number, batchSize: number): Promise<number> {
  const keptDays = Math.max(365, days);
  let removed = 0;
  for (;;) {
    const result = await db.$client`
      delete from audit_log where id = any(array(
        select id from audit_log where at < now() - make_interval(days => ${keptDays}) order by at limit ${batchSize}))`;
    removed += result.count;
    if (result.count < batchSize) return removed;
  }
}
