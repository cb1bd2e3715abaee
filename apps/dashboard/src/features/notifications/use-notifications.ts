import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, call } from '../../api/client.js';

const PAGE_SIZE = 20;

const fetchNotifications = (appId: string, cursor: string | null) =>
  call(
    api.GET('/api/v1/apps/{appId}/notifications', {
      params: { path: { appId }, query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
    }),
  );

export type Notification = Awaited<ReturnType<typeof fetchNotifications>>['notifications'][number];

const isFinished = (status: string | undefined) =>
  status === 'completed' || status === 'failed' || status === 'canceled';

/** One page of the send history, newest first; the previous page stays on screen while the next loads. */
export const useNotifications = (appId: string, cursor: string | null) =>
  useQuery({
    queryKey: ['notifications', appId, cursor],
    queryFn: () => fetchNotifications(appId, cursor),
    placeholderData: keepPreviousData,
  });

/** The history's first page, which holds the send just made (the newest): polled until that send ends. */
export const useFirstPageUntilFinished = (appId: string, id: string) =>
  useQuery({
    queryKey: ['notifications', appId, null],
    queryFn: () => fetchNotifications(appId, null),
    refetchInterval: (query) => {
      const found = query.state.data?.notifications.find((item) => item.id === id);
      return isFinished(found?.status) ? false : 1_000;
    },
  });

/**
 * One send of the app, for its own page: shown at once from the history already loaded when it is
 * there, then read with GET /apps/{appId}/notifications/{id}; null when the app has no such send.
 * Polled until the send ends, like the history.
 */
export function useNotification(appId: string, id: string) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: ['notification', appId, id],
    queryFn: async (): Promise<Notification | null> => {
      try {
        const answer = await call(
          api.GET('/api/v1/apps/{appId}/notifications/{id}', { params: { path: { appId, id } } }),
        );
        return answer.notification;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },
    initialData: () =>
      queryClient
        .getQueriesData<{ notifications: Notification[] }>({ queryKey: ['notifications', appId] })
        .flatMap(([, data]) => data?.notifications ?? [])
        .find((item) => item.id === id),
    initialDataUpdatedAt: 0,
    refetchInterval: (query) => (query.state.data && !isFinished(query.state.data.status) ? 2_000 : false),
  });
}
