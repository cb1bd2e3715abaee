import { and, desc, eq, gt, isNull, lt, ne, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { accountTokens, sessions, users } from '../schema.js';
import { recordAudit } from './audit-log.js';
import type { User } from './users.js';

export type Session = typeof sessions.$inferSelect;

/** Longest `User-Agent` kept; browsers send 100–300 characters, the rest is noise or abuse. */
export const MAX_USER_AGENT = 512;
/** `last_used_at` is written at most once per this many seconds per session. */
export const SESSION_TOUCH_SECONDS = 60;

const clipUserAgent = (userAgent: string | null | undefined): string | null =>
  userAgent ? userAgent.slice(0, MAX_USER_AGENT) : null;

/**
 * Opens a session. With `audit` (the user's e-mail and the client's address), `session.created`
 * joins the account's log in the same transaction.
 */
export async function createSession(
  db: Database,
  input: { userId: string; tokenHash: string; expiresAt: Date; userAgent?: string | null },
  audit: { email: string; ip: string | null; method: string } | null,
): Promise<void> {
  const values = { ...input, userAgent: clipUserAgent(input.userAgent) };
  if (!audit) {
    await db.insert(sessions).values(values);
    return;
  }
  await db.transaction(async (tx) => {
    const [session] = await tx.insert(sessions).values(values).returning({ id: sessions.id });
    await recordAudit(
      tx,
      { userId: input.userId },
      {
        actor: { type: 'user', id: input.userId, email: audit.email },
        ip: audit.ip,
        action: 'session.created',
        target: { type: 'session', id: session?.id ?? null },
        details: { method: audit.method, userAgent: values.userAgent },
      },
    );
  });
}

export interface LiveSession {
  user: User;
  sessionId: string;
  lastUsedAt: Date;
}

/** A suspended account's sessions are not live (they are kept: resuming the account revives them). */
/** Asked on every signed-in request: prepared once per database handle (parsed and planned once per connection). */
const liveSessionQueries = new WeakMap<Database, ReturnType<typeof prepareLiveSession>>();

function prepareLiveSession(db: Database) {
  return db
    .select({ user: users, sessionId: sessions.id, lastUsedAt: sessions.lastUsedAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(
      and(
        eq(sessions.tokenHash, sql.placeholder('tokenHash')),
        gt(sessions.expiresAt, sql`now()`),
        isNull(users.suspendedAt),
      ),
    )
    .limit(1)
    .prepare('find_live_session');
}

export async function findLiveSession(db: Database, tokenHash: string): Promise<LiveSession | null> {
  let query = liveSessionQueries.get(db);
  if (!query) {
    query = prepareLiveSession(db);
    liveSessionQueries.set(db, query);
  }
  const [row] = await query.execute({ tokenHash });
  return row ?? null;
}

export async function findSessionUser(db: Database, tokenHash: string): Promise<User | null> {
  return (await findLiveSession(db, tokenHash))?.user ?? null;
}

/**
 * Records that a session was used, at most once per SESSION_TOUCH_SECONDS: the condition is in SQL,
 * so concurrent requests of one session write once. Callers skip the call when the `lastUsedAt`
 * they already read is recent, which keeps the hot path at zero extra queries.
 */
export async function touchSession(db: Database, sessionId: string, userAgent: string | null | undefined) {
  await db
    .update(sessions)
    .set({ lastUsedAt: sql`now()`, userAgent: clipUserAgent(userAgent) })
    .where(
      and(
        eq(sessions.id, sessionId),
        lt(sessions.lastUsedAt, sql`now() - make_interval(secs => ${SESSION_TOUCH_SECONDS})`),
      ),
    );
}

export async function listLiveSessions(db: Database, userId: string): Promise<Session[]> {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, new Date())))
    .orderBy(desc(sessions.lastUsedAt), desc(sessions.createdAt));
}

export async function deleteSession(db: Database, tokenHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

export async function deleteUserSession(db: Database, userId: string, sessionId: string): Promise<boolean> {
  const deleted = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), eq(sessions.id, sessionId)))
    .returning({ id: sessions.id });
  return deleted.length > 0;
}

export async function deleteOtherSessions(db: Database, userId: string, keepSessionId: string): Promise<number> {
  const deleted = await db
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)))
    .returning({ id: sessions.id });
  return deleted.length;
}

/**
 * Removes expired sessions and account tokens that are expired or used (a used verification link
 * stays until it expires, so the page can say "already verified"), at most `batchSize` rows
 * per statement and table, until none is left. Idempotent: several workers doing it at once only
 * find less to delete.
 */
export async function deleteExpiredAuthRows(
  db: Database,
  batchSize = 1_000,
): Promise<{ sessions: number; accountTokens: number }> {
  const removed = { sessions: 0, accountTokens: 0 };
  for (;;) {
    const rows = await db.execute<{ id: string }>(sql`
      delete from ${sessions} where ${sessions.id} in (
        select ${sessions.id} from ${sessions} where ${sessions.expiresAt} < now() limit ${batchSize}
      ) returning ${sessions.id}`);
    removed.sessions += rows.length;
    if (rows.length < batchSize) break;
  }
  for (;;) {
    const rows = await db.execute<{ id: string }>(sql`
      delete from ${accountTokens} where ${accountTokens.id} in (
        select ${accountTokens.id} from ${accountTokens}
        where ${accountTokens.expiresAt} < now()
          or (${accountTokens.usedAt} is not null and ${accountTokens.purpose} <> 'verify_email')
        limit ${batchSize}
      ) returning ${accountTokens.id}`);
    removed.accountTokens += rows.length;
    if (rows.length < batchSize) break;
  }
  return removed;
}

/**
 * A new password for a signed-in user: stored, and every other session of the user ended in the
 * same transaction, so a session someone else holds does not outlive the password it was made with.
 * The session that asked stays. Null when the user is gone.
 */
export async function changePasswordKeepingSession(
  db: Database,
  userId: string,
  passwordHash: string,
  keepSessionId: string,
  ip: string | null,
): Promise<{ user: User; endedSessions: number } | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning();
    if (!user) return null;
    await recordAudit(
      tx,
      { userId },
      {
        actor: { type: 'user', id: userId, email: user.email },
        ip,
        action: 'password.changed',
        target: { type: 'account', id: userId },
      },
    );
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)))
      .returning({ id: sessions.id });
    return { user, endedSessions: ended.length };
  });
}
