import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

const PAGE_SIZE = 20;

export type StatusFilter = 'all' | 'active' | 'expired';

export interface SubscriberFilter {
  status: StatusFilter;
  uid: string;
  tag: string;
  /** A language tag: `ja` matches `ja` and `ja-JP`. */
  language: string;
  timeZone: string;
}

/** One page of the app's subscribers; the previous page stays on screen while the next loads. */
export const useSubscribers = (appId: string, filter: SubscriberFilter, cursor: string | null) =>
  useQuery({
    queryKey: ['subscribers', appId, filter.status, filter.uid, filter.tag, filter.language, filter.timeZone, cursor],
    queryFn: () =>
      call(
        api.GET('/api/v1/apps/{appId}/subscribers', {
          params: {
            path: { appId },
            query: {
              limit: PAGE_SIZE,
              ...(filter.status === 'all' ? {} : { status: filter.status }),
              ...(filter.uid ? { uid: filter.uid } : {}),
              ...(filter.tag ? { tag: filter.tag } : {}),
              ...(filter.language ? { language: filter.language } : {}),
              ...(filter.timeZone ? { timeZone: filter.timeZone } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });

/** Errors are thrown, for the confirm dialog that asked to show; the app's subscriber count follows. */
export function useDeleteSubscriber(appId: string) {
  const queryClient = useQueryClient();
  return async (subscriberId: string) => {
    await call(
      api.DELETE('/api/v1/apps/{appId}/subscribers/{subscriberId}', {
        params: { path: { appId, subscriberId } },
      }),
    );
    await queryClient.invalidateQueries({ queryKey: ['subscribers', appId] });
    await queryClient.invalidateQueries({ queryKey: ['app', appId] });
  };
}
