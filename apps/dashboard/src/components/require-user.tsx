import { Navigate, Outlet, useLocation } from 'react-router';
import { useMe } from '../api/session.js';
import { ErrorPanel } from './error-panel.js';
import { PageSkeleton } from './skeleton.js';

/** Pages behind a session: a visitor without one goes to sign-in and comes back afterwards. */
export function RequireUser() {
  const me = useMe();
  const location = useLocation();
  if (me.isPending) return <PageSkeleton />;
  if (me.isError) return <ErrorPanel error={me.error} onRetry={() => void me.refetch()} />;
  if (!me.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
