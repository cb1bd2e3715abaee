import { ApiError, api, call } from '../api/client.js';

/** The app's webhook with its circuit breaker; null when it has none. Shared by the settings and the layout. */
export type WebhookAnswer = NonNullable<Awaited<ReturnType<ReturnType<typeof webhookQuery>['queryFn']>>>;

export const webhookQuery = (appId: string) => ({
  queryKey: ['webhook', appId],
  // A paused or disabled webhook changes without the owner: follow it.
  refetchInterval: (query: { state: { data?: { status: string } | null | undefined } }) =>
    query.state.data && query.state.data.status !== 'active' ? 5_000 : false,
  // No webhook yet is an answer (404), not an error to show.
  queryFn: async () => {
    try {
      return (await call(api.GET('/api/v1/apps/{appId}/webhook', { params: { path: { appId } } }))).webhook;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  },
});
