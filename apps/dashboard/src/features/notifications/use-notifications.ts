import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

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
