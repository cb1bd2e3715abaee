import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { personalAccessTokens, users } from '../schema.js';
import { type AuditContext, recordAudit } from './audit-log.js';
import type { User } from './users.js';

export type PersonalAccessToken = typeof personalAccessTokens.$inferSelect;

/** `last_used_at` is written at most once per this many seconds per token. */
export const ACCESS_TOKEN_TOUCH_SECONDS = 60;

/**
 * Creates a token of `userId` and records `token.created` in the same transaction; `'limit'` when
 * the user already has `maxTokens` (the user's row is locked while counting).
 */
export async function createPersonalAccessToken(
  db: Database,
  userId: string,
  input: { name: string; tokenHash: string },
  maxTokens: number,
  audit: AuditContext,
): Promise<PersonalAccessToken | 'limit'> {
  return db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    const [existing] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(personalAccessTokens)
      .where(eq(personalAccessTokens.userId, userId));
    if ((existing?.count ?? 0) >= maxTokens) return 'limit';
    const [token] = await tx
      .insert(personalAccessTokens)
      .values({ userId, ...input })
      .returning();
    if (!token) throw new Error('inserting the access token returned no row');
    await recordAudit(
      tx,
      { userId },
      { ...audit, action: 'token.created', target: { type: 'token', id: token.id }, details: { name: token.name } },
    );
    return token;
  });
}

export async function listPersonalAccessTokens(db: Database, userId: string): Promise<PersonalAccessToken[]> {
  return db
    .select()
    .from(personalAccessTokens)
    .where(eq(personalAccessTokens.userId, userId))
    .orderBy(asc(personalAccessTokens.createdAt), asc(personalAccessTokens.id));
}

/** Revokes a token of `userId` and records `token.revoked` with it; false when it is not theirs. */
export async function deletePersonalAccessToken(
  db: Database,
  userId: string,
  tokenId: string,
  audit: AuditContext,
): Promise<boolean> {
  if (!isUuid(userId, tokenId)) return false;
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(personalAccessTokens)
      .where(and(eq(personalAccessTokens.userId, userId), eq(personalAccessTokens.id, tokenId)))
      .returning({ id: personalAccessTokens.id, name: personalAccessTokens.name });
    if (!deleted) return false;
    await recordAudit(
      tx,
      { userId },
      { ...audit, action: 'token.revoked', target: { type: 'token', id: deleted.id }, details: { name: deleted.name } },
    );
    return true;
  });
}

export interface AccessTokenPrincipal {
  user: User;
  tokenId: string;
  lastUsedAt: Date | null;
}

/**
 * The user a token acts for, read on every request it makes (no cache: a revoked token is refused
 * by every API instance at its next request). A suspended account's tokens are not found.
 */
export async function findAccessTokenPrincipal(db: Database, tokenHash: string): Promise<AccessTokenPrincipal | null> {
  const [row] = await db
    .select({ user: users, tokenId: personalAccessTokens.id, lastUsedAt: personalAccessTokens.lastUsedAt })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(and(eq(personalAccessTokens.tokenHash, tokenHash), sql`${users.suspendedAt} is null`))
    .limit(1);
  return row ?? null;
}

export function accessTokenUseDue(lastUsedAt: Date | null, now = Date.now()): boolean {
  return lastUsedAt === null || now - lastUsedAt.getTime() >= ACCESS_TOKEN_TOUCH_SECONDS * 1000;
}

/** Records a use for the tokens list, at most once per ACCESS_TOKEN_TOUCH_SECONDS (the database's clock decides). */
export async function recordAccessTokenUse(db: Database, tokenId: string): Promise<void> {
  await db
    .update(personalAccessTokens)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(
        eq(personalAccessTokens.id, tokenId),
        sql`(${personalAccessTokens.lastUsedAt} is null or ${personalAccessTokens.lastUsedAt} < now() - make_interval(secs => ${ACCESS_TOKEN_TOUCH_SECONDS}))`,
      ),
    );
}
