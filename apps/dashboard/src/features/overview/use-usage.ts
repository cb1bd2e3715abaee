import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

/** The app's sends this month against its plan, and its daily sends over the last 30 days. */
export const useUsage = (appId: string) =>
  useQuery({
    queryKey: ['usage', appId],
    queryFn: () => call(api.GET('/api/v1/apps/{appId}/usage', { params: { path: { appId }, query: { days: 30 } } })),
  });
