import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { type PlanRequestStatus, planRequests, users } from '../schema.js';
import { type AuditContext, recordAccountAudit } from './audit-log.js';

export type PlanRequest = typeof planRequests.$inferSelect;

export interface PlanRequestWithAccount {
  id: string;
  userId: string;
  email: string;
  currentPlan: string;
  plan: string;
  message: string | null;
  status: PlanRequestStatus;
  createdAt: Date;
  resolvedAt: Date | null;
}

/**
 * The customer asks for `plan`. One open request per account: asking again while one is open
 * changes it (the plan and the message) instead of adding another. `created` says which happened.
 */
export async function requestPlan(
  db: Database,
  userId: string,
  input: { plan: string; message: string | null },
): Promise<{ request: PlanRequest; created: boolean }> {
  const [row] = await db
    .insert(planRequests)
    .values({ userId, plan: input.plan, message: input.message })
    .onConflictDoUpdate({
      target: planRequests.userId,
      targetWhere: sql`${planRequests.status} = 'open'`,
      set: { plan: input.plan, message: input.message },
    })
    // xmax is 0 for a row this statement inserted, the updating transaction's id otherwise.
    .returning({ ...getTableColumns(planRequests), inserted: sql<boolean>`(xmax = 0)` });
  if (!row) throw new Error('storing the plan request returned no row');
  const { inserted, ...request } = row;
  return { request, created: inserted };
}

export async function listOwnPlanRequests(db: Database, userId: string, limit = 5): Promise<PlanRequest[]> {
  if (!isUuid(userId)) return [];
  return db
    .select()
    .from(planRequests)
    .where(eq(planRequests.userId, userId))
    .orderBy(desc(planRequests.createdAt), desc(planRequests.id))
    .limit(limit);
}

const withAccount = {
  id: planRequests.id,
  userId: planRequests.userId,
  email: users.email,
  currentPlan: users.plan,
  plan: planRequests.plan,
  message: planRequests.message,
  status: planRequests.status,
  createdAt: planRequests.createdAt,
  resolvedAt: planRequests.resolvedAt,
};

export async function listOpenPlanRequests(db: Database, limit: number): Promise<PlanRequestWithAccount[]> {
  return db
    .select(withAccount)
    .from(planRequests)
    .innerJoin(users, eq(users.id, planRequests.userId))
    .where(eq(planRequests.status, 'open'))
    .orderBy(asc(planRequests.createdAt), asc(planRequests.id))
    .limit(limit);
}

/**
 * Grants an open request: in one transaction the account moves to the plan asked for and the
 * request is marked granted by `operatorId`. Null for an unknown request; `'not_open'` for one
 * already granted (a second click changes nothing).
 */
export async function grantPlanRequest(
  db: Database,
  requestId: string,
  operatorId: string,
  audit: AuditContext | null,
): Promise<PlanRequestWithAccount | 'not_open' | null> {
  if (!isUuid(requestId)) return null;
  return db.transaction(async (tx) => {
    const [request] = await tx.select().from(planRequests).where(eq(planRequests.id, requestId)).for('update');
    if (!request) return null;
    if (request.status !== 'open') return 'not_open';
    await tx.update(users).set({ plan: request.plan }).where(eq(users.id, request.userId));
    if (audit) {
      await recordAccountAudit(tx, request.userId, {
        ...audit,
        action: 'account.plan_changed',
        target: { type: 'account', id: request.userId },
        details: { plan: request.plan, planRequestId: request.id },
      });
    }
    await tx
      .update(planRequests)
      .set({ status: 'granted', resolvedAt: sql`now()`, resolvedBy: operatorId })
      .where(and(eq(planRequests.id, requestId), eq(planRequests.status, 'open')));
    const [granted] = await tx
      .select(withAccount)
      .from(planRequests)
      .innerJoin(users, eq(users.id, planRequests.userId))
      .where(eq(planRequests.id, requestId));
    if (!granted) throw new Error('the granted request vanished');
    return granted;
  });
}
