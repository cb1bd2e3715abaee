import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useOutletContext } from 'react-router';
import { api, call } from '../../api/client.js';

const fetchApp = (appId: string) => call(api.GET('/api/v1/apps/{appId}', { params: { path: { appId } } }));

export type AppWithStats = Awaited<ReturnType<typeof fetchApp>>['app'];

export const useApps = () => useQuery({ queryKey: ['apps'], queryFn: () => call(api.GET('/api/v1/apps')) });

export const useApp = (appId: string) => useQuery({ queryKey: ['app', appId], queryFn: () => fetchApp(appId) });

/** The app the page is about, loaded once by the layout. */
export const useCurrentApp = () => useOutletContext<AppWithStats>();

export function useCreateApp(onCreated: (app: { id: string }) => void | Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => call(api.POST('/api/v1/apps', { body: { name } })),
    onSuccess: async ({ app }) => {
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
      await onCreated(app);
    },
  });
}
