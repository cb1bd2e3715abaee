import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, call } from '../../api/client.js';
import type { SegmentExpression } from './segment-tree.js';

/** How long the builder waits after the last keystroke before it asks for a count. */
export const COUNT_DELAY_MS = 400;

/** The app's saved segments, oldest first, each with what it matches now. */
export const useSegments = (appId: string) =>
  useQuery({
    queryKey: ['segments', appId],
    queryFn: () => call(api.GET('/api/v1/apps/{appId}/segments', { params: { path: { appId } } })),
  });

/** `value`, once it has stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * What a send to `expression` would target now, asked for once the expression has stopped changing;
 * the last count stays on screen while the next one loads. `null`: nothing to count yet.
 */
export function useSegmentCount(appId: string, expression: SegmentExpression | null) {
  // Compared by its JSON: the builder makes a new object on every render.
  const key = expression === null ? null : JSON.stringify(expression);
  const settled = useSettled(key, COUNT_DELAY_MS);
  const query = useQuery({
    queryKey: ['segment-count', appId, settled],
    queryFn: () =>
      call(
        api.POST('/api/v1/apps/{appId}/segments/count', {
          params: { path: { appId } },
          body: { segment: JSON.parse(settled ?? 'null') as SegmentExpression },
        }),
      ),
    enabled: settled !== null,
    placeholderData: keepPreviousData,
    retry: false,
  });
  return { ...query, waiting: key !== settled || query.isFetching };
}

export function useCreateSegment(appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; segment: SegmentExpression }) =>
      call(api.POST('/api/v1/apps/{appId}/segments', { params: { path: { appId } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['segments', appId] }),
  });
}

/** Renames a saved segment or replaces its conditions; its id, and so every send that names it, stays. */
export function useUpdateSegment(appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ segmentId, ...body }: { segmentId: string; name: string; segment: SegmentExpression }) =>
      call(api.PATCH('/api/v1/apps/{appId}/segments/{segmentId}', { params: { path: { appId, segmentId } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['segments', appId] }),
  });
}

/** Errors are thrown, for the confirm dialog that asked to show. */
export function useDeleteSegment(appId: string) {
  const queryClient = useQueryClient();
  return async (segmentId: string) => {
    await call(api.DELETE('/api/v1/apps/{appId}/segments/{segmentId}', { params: { path: { appId, segmentId } } }));
    await queryClient.invalidateQueries({ queryKey: ['segments', appId] });
  };
}
