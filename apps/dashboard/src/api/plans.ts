import { useQuery } from '@tanstack/react-query';
import { api, call } from './client.js';

type PlanList = Awaited<ReturnType<typeof fetchPlans>>;

const fetchPlans = () => call(api.GET('/api/v1/plans'));

/**
 * The public plans (`GET /api/v1/plans`), one cache entry for the pricing page and the apps page.
 * `initialData`: what the page already shows (the prerendered pricing page), refreshed at once.
 */
export const usePlans = (initialData?: () => PlanList | undefined) =>
  useQuery({
    queryKey: ['plans'],
    queryFn: fetchPlans,
    ...(initialData ? { initialData, initialDataUpdatedAt: 0 } : {}),
  });

/** A plan's display name from its id ("pro" → "Pro"), for sentences; the id itself until the list is in. */
export function usePlanName(): (id: string) => string {
  const plans = usePlans();
  return (id) => plans.data?.plans.find((plan) => plan.id === id)?.name ?? id;
}
