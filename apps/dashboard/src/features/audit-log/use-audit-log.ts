import { useInfiniteQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

/** Entries a page: the API's maximum, so the filters have a good stretch of history to work on. */
const PAGE_SIZE = 100;

const fetchAppAuditLog = (appId: string, cursor: string | null) =>
  call(
    api.GET('/api/v1/apps/{appId}/audit-log', {
      params: { path: { appId }, query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
    }),
  );

export type AuditLogPage = Awaited<ReturnType<typeof fetchAppAuditLog>>;
export type AuditEntry = AuditLogPage['entries'][number];

const pages = {
  initialPageParam: null as string | null,
  getNextPageParam: (last: AuditLogPage) => last.nextCursor ?? undefined,
};

/** The app's audit log, newest first; older pages join the list as they are asked for. */
export const useAppAuditLog = (appId: string) =>
  useInfiniteQuery({
    queryKey: ['audit-log', appId],
    queryFn: ({ pageParam }) => fetchAppAuditLog(appId, pageParam),
    ...pages,
  });

/** The account's own audit log (sign-ins, password, two-factor and token changes), in the same shape. */
export const useAccountAuditLog = () =>
  useInfiniteQuery({
    queryKey: ['account-audit-log'],
    queryFn: ({ pageParam }) =>
      call(
        api.GET('/api/v1/auth/audit-log', {
          params: { query: { limit: PAGE_SIZE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    ...pages,
  });
