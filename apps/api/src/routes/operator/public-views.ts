import type { PlanRequest, PlanRequestWithAccount, Tenant } from '@webpush/db';

/** An account as the operator console's API answers it. */
export const publicTenant = (tenant: Tenant) => ({
  id: tenant.id,
  email: tenant.email,
  plan: tenant.plan,
  role: tenant.role,
  suspended: tenant.suspendedAt !== null,
  suspendedAt: tenant.suspendedAt?.toISOString() ?? null,
  createdAt: tenant.createdAt.toISOString(),
  apps: tenant.apps,
  subscribers: tenant.subscribers,
  sendsThisMonth: tenant.sendsThisMonth,
});

/** A plan request as its customer sees it. */
export const publicPlanRequest = (request: PlanRequest | PlanRequestWithAccount) => ({
  id: request.id,
  plan: request.plan,
  message: request.message,
  status: request.status,
  createdAt: request.createdAt.toISOString(),
  resolvedAt: request.resolvedAt?.toISOString() ?? null,
});

/** A plan request as the operator sees it: with the account. */
export const operatorPlanRequest = (request: PlanRequestWithAccount) => ({
  ...publicPlanRequest(request),
  userId: request.userId,
  email: request.email,
  currentPlan: request.currentPlan,
});

/** The keyset cursor of the tenant list: the last e-mail of the page, opaque to clients. */
export const encodeTenantCursor = (email: string) => Buffer.from(email, 'utf8').toString('base64url');

/** The e-mail a tenant cursor stands for, or null when it is not one (→ INVALID_INPUT). */
export function decodeTenantCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(cursor)) return null;
  const email = Buffer.from(cursor, 'base64url').toString('utf8');
  if (email.length === 0 || email.length > 254 || email.includes('\u0000') || email.includes('\ufffd')) return null;
  return email;
}
