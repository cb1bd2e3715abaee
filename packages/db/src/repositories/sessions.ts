import { and, eq, gt } from 'drizzle-orm';
import type { Database } from '../client.js';
import { sessions, users } from '../schema.js';
import type { User } from './users.js';

export async function createSession(
  db: Database,
  input: { userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(sessions).values(input);
}

/** The user of a live (unexpired) session, or null. */
export async function findSessionUser(db: Database, tokenHash: string): Promise<User | null> {
  const [row] = await db
    .select({ user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, new Date())))
    .limit(1);
  return row?.user ?? null;
}

export async function deleteSession(db: Database, tokenHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}
