/**
 * Plan limits (SPEC §8, CONTRACT "Limits"). `null` means "no limit".
 * A user's plan is a column on the user row; `pnpm admin set-plan` moves it.
 */
export const planNames = ['free', 'pro', 'enterprise'] as const;
export type PlanName = (typeof planNames)[number];

export interface PlanLimits {
  readonly apps: number | null;
  readonly activeSubscribers: number | null;
  readonly sendsPerMonth: number | null;
}

export const plans: Readonly<Record<PlanName, PlanLimits>> = {
  free: { apps: 1, activeSubscribers: 1_000, sendsPerMonth: 30_000 },
  pro: { apps: 10, activeSubscribers: 100_000, sendsPerMonth: 3_000_000 },
  enterprise: { apps: null, activeSubscribers: null, sendsPerMonth: null },
};

/** What people read: the pricing page and the dashboard show plans by these names. */
export const planDisplayNames: Readonly<Record<PlanName, string>> = {
  free: 'Free',
  pro: 'Pro',
  enterprise: 'Enterprise',
};

export const isPlanName = (value: string): value is PlanName => (planNames as readonly string[]).includes(value);

export function limitsFor(plan: string): PlanLimits {
  // An unknown plan in the database is treated as Free: the safe side for a limit.
  return isPlanName(plan) ? plans[plan] : plans.free;
}
