import { and, asc, eq, gt, inArray, like, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';
import { isUuid } from '../ids.js';
import {
  apps,
  monthlyUsage,
  notifications,
  subscriberCounters,
  type UserRole,
  users,
  webhookMessages,
} from '../schema.js';
import { type AuditContext, recordAccountAudit } from './audit-log.js';
import { currentUsageMonth } from './usage.js';
import type { User } from './users.js';

/*
 * The operator console's view of accounts. Every function here spans tenants by design: the routes
 * that call them answer only to an operator (plugins/app/operator.ts), and no customer route may.
 */

export interface Tenant {
  id: string;
  email: string;
  plan: string;
  role: UserRole;
  suspendedAt: Date | null;
  createdAt: Date;
  apps: number;
  /** Active subscribers across the account's apps (the sum of its subscriber counter's stripes). */
  subscribers: number;
  sendsThisMonth: number;
}

export interface TenantPage {
  tenants: Tenant[];
  nextCursor: string | null;
}

// drizzle writes a column of the only table in FROM without its table name, which inside a
// subquery on `apps` would mean `apps.id`: the outer account is named in full.
const accountId = sql.raw('"users"."id"');

const tenantColumns = {
  id: users.id,
  email: users.email,
  plan: users.plan,
  role: users.role,
  suspendedAt: users.suspendedAt,
  createdAt: users.createdAt,
  // Each count is an index lookup of one account (apps_user_id_idx, the counter's and the usage's
  // primary keys): a page of 100 accounts costs 300 small probes, whatever the total.
  apps: sql<number>`(select count(*) from ${apps} where ${apps.userId} = ${accountId})`.mapWith(Number),
  subscribers: sql<number>`coalesce((select sum(${subscriberCounters.active}) from ${subscriberCounters}
    where ${subscriberCounters.userId} = ${accountId}), 0)`.mapWith(Number),
  sendsThisMonth: sql<number>`coalesce((select ${monthlyUsage.sends} from ${monthlyUsage}
    where ${monthlyUsage.userId} = ${accountId} and ${monthlyUsage.month} = ${currentUsageMonth}), 0)`.mapWith(Number),
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * A page of accounts in e-mail order (keyset on the unique e-mail: an index range scan, never an
 * OFFSET), optionally only those whose e-mail starts with `search`.
 */
export async function listTenants(
  db: Database,
  options: { limit: number; after?: string | null; search?: string | null },
): Promise<TenantPage> {
  const conditions = [];
  if (options.after) conditions.push(gt(users.email, options.after));
  if (options.search) conditions.push(like(users.email, `${escapeLike(options.search.toLowerCase())}%`));
  const rows = await db
    .select(tenantColumns)
    .from(users)
    .where(conditions.length > 0 ? and(...conditions) : undefined)
    .orderBy(asc(users.email))
    .limit(options.limit + 1);
  const more = rows.length > options.limit;
  const tenants = more ? rows.slice(0, options.limit) : rows;
  return { tenants, nextCursor: more ? (tenants.at(-1)?.email ?? null) : null };
}

export async function findTenant(db: Database, userId: string): Promise<Tenant | null> {
  if (!isUuid(userId)) return null;
  const [row] = await db.select(tenantColumns).from(users).where(eq(users.id, userId)).limit(1);
  return row ?? null;
}

/** Moves the account to `plan`, recorded as `account.plan_changed` in its apps' logs and its own. */
export async function setTenantPlan(
  db: Database,
  userId: string,
  plan: string,
  audit: AuditContext | null,
): Promise<Tenant | null> {
  if (!isUuid(userId)) return null;
  const updated = await db.transaction(async (tx) => {
    const [row] = await tx.update(users).set({ plan }).where(eq(users.id, userId)).returning({ id: users.id });
    if (row && audit) {
      await recordAccountAudit(tx, row.id, {
        ...audit,
        action: 'account.plan_changed',
        target: { type: 'account', id: row.id },
        details: { plan },
      });
    }
    return row;
  });
  return updated ? findTenant(db, updated.id) : null;
}

/**
 * Suspends (`true`) or resumes (`false`) the account. Its apps, keys, sessions and subscribers
 * stay, and resuming makes its keys and sessions work again. Suspending twice keeps the first time.
 * Suspending stops its sending in the same transaction (docs/operations.md): scheduled sends end
 * `canceled`, sends under way end `failed` with `ACCOUNT_SUSPENDED` (the worker pushes none of
 * their remaining chunks), and webhook events not yet delivered are dropped; resuming starts none
 * of them again. Recorded as `account.suspended` / `account.resumed` in the account's apps' logs
 * and its own.
 */
export async function setTenantSuspended(
  db: Database,
  userId: string,
  suspended: boolean,
  audit: AuditContext | null,
): Promise<Tenant | null> {
  if (!isUuid(userId)) return null;
  const updated = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(users)
      .set({ suspendedAt: suspended ? sql`coalesce(${users.suspendedAt}, now())` : null })
      .where(eq(users.id, userId))
      .returning({ id: users.id });
    if (row && suspended) await stopSending(tx, row.id);
    if (row && audit) {
      await recordAccountAudit(tx, row.id, {
        ...audit,
        action: suspended ? 'account.suspended' : 'account.resumed',
        target: { type: 'account', id: row.id },
      });
    }
    return row;
  });
  return updated ? findTenant(db, updated.id) : null;
}

/** Ends the sending of `userId`'s apps (see {@link setTenantSuspended}); no webhook event is written. */
async function stopSending(tx: Transaction, userId: string): Promise<void> {
  const owned = tx.select({ id: apps.id }).from(apps).where(eq(apps.userId, userId));
  await tx
    .update(notifications)
    .set({ status: 'canceled', completedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(inArray(notifications.appId, owned), eq(notifications.status, 'scheduled')));
  await tx
    .update(notifications)
    .set({
      status: 'failed',
      errorCode: 'ACCOUNT_SUSPENDED',
      completedAt: sql`now()`,
      fannedOutAt: sql`coalesce(${notifications.fannedOutAt}, now())`,
      updatedAt: sql`now()`,
    })
    .where(and(inArray(notifications.appId, owned), inArray(notifications.status, ['queued', 'sending'])));
  await tx
    .update(webhookMessages)
    .set({ status: 'failed' })
    .where(and(inArray(webhookMessages.appId, owned), eq(webhookMessages.status, 'pending')));
}

/**
 * Gives the account with `email` the operator role (`pnpm admin grant-operator`): null when no
 * account has it, `'unverified'` (nothing changed) when the account never proved it owns the
 * address, since whoever registered it first could otherwise take the console.
 */
export async function grantOperatorRole(
  db: Database,
  email: string,
): Promise<{ user: User; already: boolean } | 'unverified' | null> {
  const [before] = await db
    .select({ role: users.role, emailVerified: users.emailVerified })
    .from(users)
    .where(eq(users.email, email))
    .limit(1);
  if (!before) return null;
  if (!before.emailVerified) return 'unverified';
  const [user] = await db
    .update(users)
    .set({ role: 'operator' })
    .where(and(eq(users.email, email), eq(users.emailVerified, true)))
    .returning();
  return user ? { user, already: before.role === 'operator' } : null;
}
