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
