import { and, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';
import { type AccountTokenPurpose, accountTokens, sessions, users } from '../schema.js';
import { recordAudit } from './audit-log.js';
import type { User } from './users.js';

export async function createAccountToken(
  db: Database,
  input: { userId: string; purpose: AccountTokenPurpose; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(accountTokens).values(input);
}

const live = (purpose: AccountTokenPurpose, tokenHash: string) =>
  and(
    eq(accountTokens.tokenHash, tokenHash),
    eq(accountTokens.purpose, purpose),
    isNull(accountTokens.usedAt),
    gt(accountTokens.expiresAt, sql`now()`),
  );

/**
 * Marks a live token of `purpose` used and returns its user id, in the caller's transaction. One
 * UPDATE with the conditions in SQL, so two redemptions of the same token cannot both succeed.
 */
async function redeem(tx: Transaction, purpose: AccountTokenPurpose, tokenHash: string): Promise<string | null> {
  const [row] = await tx
    .update(accountTokens)
    .set({ usedAt: sql`now()` })
    .where(live(purpose, tokenHash))
    .returning({ userId: accountTokens.userId });
  return row?.userId ?? null;
}

/**
 * Whether a verification link was already used by an account that is now verified: what the page
 * says when the link is opened a second time (its redemption is `INVALID_TOKEN` by contract).
 * Used tokens are kept until the clean-up removes expired ones, so this holds for a day.
 */
export async function verificationLinkUsed(db: Database, tokenHash: string): Promise<boolean> {
  const [row] = await db
    .select({ verified: users.emailVerified })
    .from(accountTokens)
    .innerJoin(users, eq(users.id, accountTokens.userId))
    .where(
      and(
        eq(accountTokens.tokenHash, tokenHash),
        eq(accountTokens.purpose, 'verify_email'),
        isNotNull(accountTokens.usedAt),
      ),
    );
  return row?.verified === true;
}

/** The user of a live, unused token of `purpose`, without spending it; null for any other. */
export async function findAccountTokenUser(
  db: Database,
  purpose: AccountTokenPurpose,
  tokenHash: string,
): Promise<User | null> {
  const [row] = await db
    .select({ user: users })
    .from(accountTokens)
    .innerJoin(users, eq(users.id, accountTokens.userId))
    .where(live(purpose, tokenHash))
    .limit(1);
  return row?.user ?? null;
}

/** Spends a live token of `purpose`: true for the one request that does. */
export async function spendAccountToken(
  db: Database,
  purpose: AccountTokenPurpose,
  tokenHash: string,
): Promise<boolean> {
  const spent = await db
    .update(accountTokens)
    .set({ usedAt: sql`now()` })
    .where(live(purpose, tokenHash))
    .returning({ id: accountTokens.id });
  return spent.length > 0;
}

/** Redeems a verification token: the user's e-mail is verified. Null for an unknown, used or expired token. */
export async function verifyEmailWithToken(db: Database, tokenHash: string): Promise<User | null> {
  return db.transaction(async (tx) => {
    const userId = await redeem(tx, 'verify_email', tokenHash);
    if (!userId) return null;
    const [user] = await tx.update(users).set({ emailVerified: true }).where(eq(users.id, userId)).returning();
    return user ?? null;
  });
}

/**
 * Redeems a password-reset token: the new password hash is stored, every session of the user ends,
 * and the user's other unused reset tokens are spent. The link reached the mailbox, so the e-mail
 * counts as verified too. Null for an unknown, used or expired token.
 */
export async function resetPasswordWithToken(
  db: Database,
  tokenHash: string,
  passwordHash: string,
  ip: string | null,
): Promise<User | null> {
  return db.transaction(async (tx) => {
    const userId = await redeem(tx, 'reset_password', tokenHash);
    if (!userId) return null;
    const [user] = await tx
      .update(users)
      .set({ passwordHash, emailVerified: true })
      .where(eq(users.id, userId))
      .returning();
    if (!user) return null;
    await recordAudit(
      tx,
      { userId },
      {
        actor: { type: 'user', id: userId, email: user.email },
        ip,
        action: 'password.reset',
        target: { type: 'account', id: userId },
      },
    );
    await tx.delete(sessions).where(eq(sessions.userId, userId));
    await tx
      .update(accountTokens)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(accountTokens.userId, userId),
          eq(accountTokens.purpose, 'reset_password'),
          isNull(accountTokens.usedAt),
        ),
      );
    return user;
  });
}
