import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

/** The periods the overview offers, in days (the API takes 1–90). */
export const PERIODS = [7, 30, 90] as const;
export type Period = (typeof PERIODS)[number];

const fetchStats = (appId: string, days: Period) =>
  call(api.GET('/api/v1/apps/{appId}/stats', { params: { path: { appId }, query: { days } } }));

export type DayStats = Awaited<ReturnType<typeof fetchStats>>['days'][number];

/** The app's counts per UTC day over the last `days` days, today last; the last period stays while the next loads. */
export const useStats = (appId: string, days: Period) =>
  useQuery({
    queryKey: ['stats', appId, days],
    queryFn: () => fetchStats(appId, days),
    placeholderData: keepPreviousData,
  });
