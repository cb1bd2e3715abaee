import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { leftBySigningOut, signedOutDestination, signedOutIsAGuess, useMe } from '../api/session.js';
import { ErrorPanel } from './error-panel.js';
import { PageSkeleton } from './skeleton.js';

/** Pages behind a session: a visitor without one goes to sign-in and comes back afterwards. */
export function RequireUser() {
  const me = useMe();
  const location = useLocation();
  // A signed-out page guessed "nobody" without asking: ask now, before sending the visitor to sign-in.
  const guessed = me.data === null && signedOutIsAGuess();
  const { refetch } = me;
  useEffect(() => {
    if (guessed) void refetch();
  }, [guessed, refetch]);
  if (me.isPending || guessed) return <PageSkeleton />;
  if (me.isError) return <ErrorPanel error={me.error} onRetry={() => void me.refetch()} />;
  if (!me.data) {
    const next = `${location.pathname}${location.search}`;
    if (leftBySigningOut()) return <Navigate to={signedOutDestination()} replace />;
    if (next === '/') return <Navigate to="/sign-in" replace />;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}
