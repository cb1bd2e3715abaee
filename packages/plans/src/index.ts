/**
 * Plan limits. `null` means "no limit".
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

/** A plan as the public plan list shows it: GET /api/v1/plans and the prerendered pricing page. */
export interface PublicPlan {
  id: PlanName;
  name: string;
  limits: { apps: number | null; subscribers: number | null; sendsPerMonth: number | null };
}

/** Whether `to` is a higher plan than `from`: a customer asks only for those; the operator moves plans either way. */
export const isUpgrade = (from: string, to: PlanName): boolean =>
  planNames.indexOf(to) > (isPlanName(from) ? planNames.indexOf(from) : 0);

/** Every plan, in order, with its name and limits: the public plan list, built once for everyone who shows it. */
export function publicPlanList(): PublicPlan[] {
  return planNames.map((id) => ({
    id,
    name: planDisplayNames[id],
    limits: {
      apps: plans[id].apps,
      subscribers: plans[id].activeSubscribers,
      sendsPerMonth: plans[id].sendsPerMonth,
    },
  }));
}

export const isPlanName = (value: string): value is PlanName => (planNames as readonly string[]).includes(value);

export function limitsFor(plan: string): PlanLimits {
  // An unknown plan in the database is treated as Free: the safe side for a limit.
  return isPlanName(plan) ? plans[plan] : plans.free;
}

export {
  DEFAULT_TTL_SECONDS,
  MAX_ACTION_TITLE_LENGTH,
  MAX_ACTIONS,
  MAX_ALLOWED_ORIGINS,
  MAX_BATCH_ENDPOINTS,
  MAX_DATA_BYTES,
  MAX_FREQUENCY_CAP_HOURS,
  MAX_FREQUENCY_CAP_PUSHES,
  MAX_IMPORT_BODY_BYTES,
  MAX_IMPORT_SUBSCRIBERS,
  MAX_NAME_LENGTH,
  MAX_PASSWORD_LENGTH,
  MAX_PAYLOAD_BYTES,
  MAX_SAMPLE,
  MAX_SCHEDULE_AHEAD_DAYS,
  MAX_SCHEDULE_AHEAD_MS,
  MAX_SEGMENT_DEPTH,
  MAX_SEGMENT_IN_VALUES,
  MAX_SEGMENT_LEAVES,
  MAX_SEGMENT_NAME_LENGTH,
  MAX_SEGMENT_OPERANDS,
  MAX_SUBSCRIBED_WITHIN_DAYS,
  MAX_TAG_LENGTH,
  MAX_TARGET_UIDS,
  MAX_THROTTLE_PER_MINUTE,
  MAX_TRANSLATIONS,
  MAX_TTL_SECONDS,
  MAX_VARIANTS,
  MAX_WEBHOOK_URL_LENGTH,
  MAX_WINNER_AFTER_MINUTES,
  MIN_PASSWORD_LENGTH,
  MIN_SAMPLE,
  MIN_THROTTLE_PER_MINUTE,
} from './request-limits.js';
