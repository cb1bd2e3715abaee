import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { totpRecoveryCodes, users } from '../schema.js';
import { type AuditContext, recordAudit } from './audit-log.js';
import type { User } from './users.js';

/*
 * Two-factor sign-in (docs/accounts.md): the sealed TOTP secret on the user's row, its recovery
 * codes as keyed hashes. The API checks codes; these functions store what it decided, each in one
 * statement or one transaction, so two requests with the same code cannot both succeed.
 */

/** Stores a new secret for setup; false (nothing changed) once two-factor sign-in is on. */
export async function setPendingTotpSecret(db: Database, userId: string, sealedSecret: string): Promise<boolean> {
  const updated = await db
    .update(users)
    .set({ totpSecretSealed: sealedSecret })
    .where(and(eq(users.id, userId), isNull(users.totpEnabledAt)))
    .returning({ id: users.id });
  return updated.length > 0;
}

/**
 * Turns two-factor sign-in on with the secret set up (still `sealedSecret`, so a setup made
 * meanwhile in another tab is not the one enabled) and stores the recovery codes' hashes, replacing
 * any earlier ones; `totp.enabled` joins the account's log in the same transaction. Null when it is
 * on already or the secret changed.
 */
export async function enableTotp(
  db: Database,
  userId: string,
  sealedSecret: string,
  recoveryCodeHashes: readonly string[],
  audit: AuditContext,
): Promise<User | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .update(users)
      .set({ totpEnabledAt: sql`now()`, totpLastStep: null })
      .where(and(eq(users.id, userId), isNull(users.totpEnabledAt), eq(users.totpSecretSealed, sealedSecret)))
      .returning();
    if (!user) return null;
    await tx.delete(totpRecoveryCodes).where(eq(totpRecoveryCodes.userId, userId));
    await tx.insert(totpRecoveryCodes).values(recoveryCodeHashes.map((codeHash) => ({ userId, codeHash })));
    await recordAudit(tx, { userId }, { ...audit, action: 'totp.enabled', target: { type: 'account', id: userId } });
    return user;
  });
}

/** Turns two-factor sign-in off: secret and recovery codes go; `totp.disabled` is recorded with it. */
export async function disableTotp(db: Database, userId: string, audit: AuditContext): Promise<User | null> {
  return db.transaction(async (tx) => {
    const [user] = await tx
      .update(users)
      .set({ totpSecretSealed: null, totpEnabledAt: null, totpLastStep: null })
      .where(and(eq(users.id, userId), isNotNull(users.totpEnabledAt)))
      .returning();
    if (!user) return null;
    await tx.delete(totpRecoveryCodes).where(eq(totpRecoveryCodes.userId, userId));
    await recordAudit(tx, { userId }, { ...audit, action: 'totp.disabled', target: { type: 'account', id: userId } });
    return user;
  });
}

/**
 * Records that a code of time step `step` signed in: true once per step and only for a step later
 * than the last one used, so a code seen by someone else cannot sign in again (RFC 6238 section 5.2).
 */
export async function claimTotpStep(db: Database, userId: string, step: number): Promise<boolean> {
  const updated = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return updated.length > 0;
}

/** Spends one unused recovery code of the user; false for a wrong or used one. */
export async function redeemRecoveryCode(db: Database, userId: string, codeHash: string): Promise<boolean> {
  const updated = await db
    .update(totpRecoveryCodes)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(totpRecoveryCodes.userId, userId),
        eq(totpRecoveryCodes.codeHash, codeHash),
        isNull(totpRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: totpRecoveryCodes.id });
  return updated.length > 0;
}
