import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/openapi.js';

type SendBody = NonNullable<
  paths['/api/v1/apps/{appId}/notifications']['post']['requestBody']
>['content']['application/json'];

/** Sends (or schedules) a notification; the answer keeps `sendAt` and `localTime` so the page can say when it goes. */
export function useSend(appId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SendBody) =>
      call(api.POST('/api/v1/apps/{appId}/notifications', { params: { path: { appId } }, body })).then((answer) => ({
        ...answer,
        sendAt: body.sendAt,
        localTime: body.localTime,
      })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['usage', appId] });
      await queryClient.invalidateQueries({ queryKey: ['app', appId] });
      await queryClient.invalidateQueries({ queryKey: ['stats', appId] });
      await queryClient.invalidateQueries({ queryKey: ['notifications', appId] });
    },
  });
}
