import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { users } from '../schema.js';
import { type AuditContext, recordAccountAudit } from './audit-log.js';

export type User = typeof users.$inferSelect;

const UNIQUE_VIOLATION = '23505';
export const isUniqueViolation = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  'code' in error &&
  (error as { code: unknown }).code === UNIQUE_VIOLATION;

export type AccountLanguage = User['language'];

export async function createUser(
  db: Database,
  input: { email: string; passwordHash: string; language?: AccountLanguage },
): Promise<User | null> {
  const [user] = await db
    .insert(users)
    .values({ email: input.email, passwordHash: input.passwordHash, language: input.language })
    .onConflictDoNothing({ target: users.email })
    .returning();
  return user ?? null;
}

export async function findUserByEmail(db: Database, email: string): Promise<User | null> {
  const [user] = await db.select().from(users).where(eq(users.email, email)).limit(1);
  return user ?? null;
}

export async function findUserById(db: Database, id: string): Promise<User | null> {
  if (!isUuid(id)) return null;
  const [user] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return user ?? null;
}

export type GithubSignInRefusal = 'linked_to_other' | 'unverified';

/**
 * GitHub sign-in: the account already linked to this GitHub id, else the account whose e-mail is
 * the GitHub user's *verified* primary e-mail (linked from now on) when that account has verified
 * its e-mail too, else a new account (verified: GitHub verified the address). An account with the
 * e-mail that never proved it owns it is refused: linking it would hand whoever registered it first
 * the GitHub user's future apps (account pre-hijack).
 */
export async function signInGithubUser(
  db: Database,
  input: { githubId: number; email: string; language?: AccountLanguage },
): Promise<User | GithubSignInRefusal> {
  return db.transaction(async (tx) => {
    const [linked] = await tx.select().from(users).where(eq(users.githubId, input.githubId)).limit(1);
    if (linked) return linked;
    const [byEmail] = await tx.select().from(users).where(eq(users.email, input.email)).limit(1).for('update');
    if (byEmail) {
      // Never re-link an account already tied to another GitHub user.
      if (byEmail.githubId !== null) return 'linked_to_other';
      if (!byEmail.emailVerified) return 'unverified';
      const [updated] = await tx
        .update(users)
        .set({ githubId: input.githubId })
        .where(and(eq(users.id, byEmail.id), isNull(users.githubId)))
        .returning();
      if (!updated) throw new Error('linking the GitHub user returned no row');
      return updated;
    }
    const [created] = await tx
      .insert(users)
      .values({
        email: input.email,
        githubId: input.githubId,
        passwordHash: null,
        emailVerified: true,
        language: input.language,
      })
      .returning();
    if (!created) throw new Error('inserting the GitHub user returned no row');
    return created;
  });
}

/** `pnpm admin set-plan`: recorded as `account.plan_changed` in the account's apps' logs and its own. */
export async function setUserPlan(
  db: Database,
  email: string,
  plan: string,
  audit: AuditContext | null,
): Promise<User | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx.update(users).set({ plan }).where(eq(users.email, email)).returning();
    if (user && audit) {
      await recordAccountAudit(tx, user.id, {
        ...audit,
        action: 'account.plan_changed',
        target: { type: 'account', id: user.id },
        details: { plan },
      });
    }
    return user ?? null;
  });
}

export async function setUserLanguage(db: Database, userId: string, language: AccountLanguage): Promise<User | null> {
  const [user] = await db.update(users).set({ language }).where(eq(users.id, userId)).returning();
  return user ?? null;
}
