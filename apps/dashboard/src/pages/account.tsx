import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../api/client.js';
import { switchUser, useMe } from '../api/session.js';
import { ErrorMessage } from '../components/error-panel.js';

export function AccountPage() {
  const me = useMe();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    document.title = 'Account · Web Push';
  }, []);
  const signOut = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/logout')),
    onSuccess: async () => {
      switchUser(queryClient, null);
      await navigate('/sign-in', { replace: true });
    },
  });
  const user = me.data;
  if (!user) return null;
  return (
    <>
      <h1>Account</h1>
      <section className="panel">
        <dl className="facts">
          <dt>E-mail</dt>
          <dd>{user.email}</dd>
          <dt>Plan</dt>
          <dd>
            <span className="badge">{user.plan}</span> <Link to="/pricing">Compare plans</Link>
          </dd>
        </dl>
        <p className="muted">
          There is no billing yet: to change your plan, ask the operator of this service to run{' '}
          <code>pnpm admin set-plan {user.email} pro</code>.
        </p>
      </section>
      <section className="panel">
        <h2>Sign out</h2>
        <p className="muted">Ends this session on this browser.</p>
        <ErrorMessage error={signOut.error} />
        <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </section>
    </>
  );
}
