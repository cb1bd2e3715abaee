import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.js';

/** Entries a page: the API's maximum. */
const PAGE_SIZE = 100;

/** What the API filters the log by: one action (`key.revoked`), one actor id; unset, everything. */
export interface AuditFilter {
  action?: string;
  actor?: string;
}

const queryOf = (filter: AuditFilter, cursor: string | null) => ({
  limit: PAGE_SIZE,
  ...(cursor ? { cursor } : {}),
  ...(filter.action ? { action: filter.action } : {}),
  ...(filter.actor ? { actor: filter.actor } : {}),
});

const fetchAppAuditLog = (appId: string, filter: AuditFilter, cursor: string | null) =>
  call(api.GET('/api/v1/apps/{appId}/audit-log', { params: { path: { appId }, query: queryOf(filter, cursor) } }));

export type AuditLogPage = Awaited<ReturnType<typeof fetchAppAuditLog>>;
export type AuditEntry = AuditLogPage['entries'][number];

const pages = {
  initialPageParam: null as string | null,
  getNextPageParam: (last: AuditLogPage) => last.nextCursor ?? undefined,
  // A new filter keeps the entries on screen until its first page is in.
  placeholderData: keepPreviousData,
};

/** Whose log: an app's (owner and admins) or the signed-in account's own. */
export type AuditSource = { appId: string } | 'account';

const fetchAccountAuditLog = (filter: AuditFilter, cursor: string | null) =>
  call(api.GET('/api/v1/auth/audit-log', { params: { query: queryOf(filter, cursor) } }));

/** The log of `source`, newest first, filtered by the API; older pages join the list as they are asked for. */
export const useAuditLog = (source: AuditSource, filter: AuditFilter) =>
  useInfiniteQuery({
    queryKey: [
      source === 'account' ? 'account-audit-log' : 'audit-log',
      source === 'account' ? '' : source.appId,
      filter,
    ],
    queryFn: ({ pageParam }) =>
      source === 'account'
        ? fetchAccountAuditLog(filter, pageParam)
        : fetchAppAuditLog(source.appId, filter, pageParam),
    ...pages,
  });
