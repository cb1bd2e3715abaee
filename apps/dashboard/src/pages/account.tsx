import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, call } from '../api/client.js';
import { switchUser, useMe } from '../api/session.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorMessage, ErrorPanel } from '../components/error-panel.js';
import { Skeleton } from '../components/skeleton.js';

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

const BROWSERS = [
  ['Edge', /Edg\/(\d+)/],
  ['Firefox', /Firefox\/(\d+)/],
  ['Chrome', /Chrome\/(\d+)/],
  ['Safari', /Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari/],
] as const;

/** "Chrome 126 on Linux" from a User-Agent (the full string is the cell's title). */
export function describeAgent(agent: string): string {
  let browser: string | null = null;
  for (const [name, pattern] of BROWSERS) {
    const match = pattern.exec(agent);
    if (match) {
      browser = `${name} ${match[1]}`;
      break;
    }
  }
  const system = /iPhone|iPad/.test(agent)
    ? 'iOS'
    : /Android/.test(agent)
      ? 'Android'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : null;
  if (!browser) return agent.length > 60 ? `${agent.slice(0, 60)}…` : agent;
  return system ? `${browser} on ${system}` : browser;
}

/** GET /auth/sessions: every live session, "this device" marked; the others can be ended. */
function Sessions() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['sessions'], queryFn: () => call(api.GET('/api/v1/auth/sessions')) });
  const endOne = async (id: string) => {
    await call(api.DELETE('/api/v1/auth/sessions/{id}', { params: { path: { id } } }));
    await queryClient.invalidateQueries({ queryKey: ['sessions'] });
  };
  const endOthers = async () => {
    await call(api.DELETE('/api/v1/auth/sessions'));
    await queryClient.invalidateQueries({ queryKey: ['sessions'] });
  };
  const others = sessions.data?.sessions.filter((session) => !session.current).length ?? 0;
  return (
    <section className="panel" aria-labelledby="sessions-title">
      <div className="panel-heading">
        <h2 id="sessions-title">Sessions</h2>
        {others > 0 && (
          <ConfirmButton
            label="Sign out all other sessions"
            title="Sign out all other sessions?"
            confirmLabel="Sign them out"
            onConfirm={endOthers}
          >
            <p>
              Every browser signed in to your account except this one will be signed out ({others}{' '}
              {others === 1 ? 'session' : 'sessions'}).
            </p>
          </ConfirmButton>
        )}
      </div>
      {sessions.isPending ? (
        <Skeleton lines={2} />
      ) : sessions.isError ? (
        <ErrorPanel error={sessions.error} onRetry={() => void sessions.refetch()} />
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Browser</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.sessions.map((session) => (
                <tr key={session.id} data-testid="session-row">
                  <td title={session.userAgent ?? undefined}>
                    {session.userAgent ? describeAgent(session.userAgent) : <span className="muted">Unknown</span>}
                    {session.current && (
                      <>
                        {' '}
                        <span className="badge nowrap">This device</span>
                      </>
                    )}
                  </td>
                  <td>{dateFormat.format(new Date(session.createdAt))}</td>
                  <td>{dateFormat.format(new Date(session.lastUsedAt))}</td>
                  <td className="actions">
                    {!session.current && (
                      <ConfirmButton
                        label="Sign out"
                        ariaLabel={`Sign out the session from ${dateFormat.format(new Date(session.createdAt))}`}
                        title="Sign out this session?"
                        confirmLabel="Sign it out"
                        onConfirm={() => endOne(session.id)}
                      >
                        <p>That browser will have to sign in again.</p>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

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
          <dd>
            <span>{user.email}</span>{' '}
            {user.emailVerified ? <span className="badge">verified</span> : <span className="badge">not verified</span>}
          </dd>
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
      <Sessions />
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
