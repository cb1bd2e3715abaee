import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type PlanId = (typeof PLANS)[number];

const PAGE_SIZE = 25;

/** Everything the console shows comes from the API again after a change. */
const useRefreshConsole = () => {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ predicate: (query) => query.queryKey[0] === 'operator' });
};

export const usePlanRequests = () =>
  useQuery({
    queryKey: ['operator', 'plan-requests'],
    queryFn: () => call(api.GET('/api/v1/operator/plan-requests')),
  });

export function useGrantPlanRequest() {
  const refreshConsole = useRefreshConsole();
  return useMutation({
    mutationFn: (requestId: string) =>
      call(api.POST('/api/v1/operator/plan-requests/{requestId}/grant', { params: { path: { requestId } } })),
    onSuccess: refreshConsole,
  });
}

/** One page of the accounts, matching `search` (e-mail) when it is not empty. */
export const useTenants = (search: string, cursor: string | null) =>
  useQuery({
    queryKey: ['operator', 'tenants', search, cursor],
    queryFn: () =>
      call(
        api.GET('/api/v1/operator/tenants', {
          params: {
            query: {
              limit: PAGE_SIZE,
              ...(cursor ? { cursor } : {}),
              ...(search ? { q: search } : {}),
            },
          },
        }),
      ),
  });

export function useChangePlan(userId: string) {
  const refreshConsole = useRefreshConsole();
  return useMutation({
    mutationFn: (plan: PlanId) =>
      call(api.PATCH('/api/v1/operator/tenants/{userId}/plan', { params: { path: { userId } }, body: { plan } })),
    onSuccess: refreshConsole,
  });
}

/** Suspends an account or lets it back in; errors are thrown, for the confirm dialog. */
export function useSetSuspension(userId: string) {
  const refreshConsole = useRefreshConsole();
  return async (suspended: boolean) => {
    const params = { params: { path: { userId } } };
    await call(
      suspended
        ? api.PUT('/api/v1/operator/tenants/{userId}/suspension', params)
        : api.DELETE('/api/v1/operator/tenants/{userId}/suspension', params),
    );
    await refreshConsole();
  };
}
