import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useOutletContext, useParams } from 'react-router';
import { api, call } from '../api/client.js';
import { ErrorPanel } from '../components/error-panel.js';
import { Skeleton } from '../components/skeleton.js';

const fetchApp = (appId: string) => call(api.GET('/api/v1/apps/{appId}', { params: { path: { appId } } }));

export type AppWithStats = Awaited<ReturnType<typeof fetchApp>>['app'];

export const appQuery = (appId: string) => ({ queryKey: ['app', appId], queryFn: () => fetchApp(appId) });

/** The app the page is about, loaded once by the layout. */
export const useCurrentApp = () => useOutletContext<AppWithStats>();

const tabs = [
  { to: '', label: 'Overview', end: true },
  { to: 'send', label: 'Send' },
  { to: 'notifications', label: 'Notifications' },
  { to: 'subscribers', label: 'Subscribers' },
  { to: 'keys', label: 'API keys' },
  { to: 'try', label: 'Try it' },
  { to: 'settings', label: 'Settings' },
];

export function AppLayout() {
  const { appId = '' } = useParams();
  const app = useQuery(appQuery(appId));
  return (
    <>
      <div className="app-heading">
        {app.data ? <h1>{app.data.app.name}</h1> : <div className="skeleton skeleton-title" aria-hidden="true" />}
        <nav aria-label="App" className="tabs">
          {tabs.map((tab) => (
            <NavLink key={tab.to} to={tab.to ? `/apps/${appId}/${tab.to}` : `/apps/${appId}`} end={tab.end}>
              {tab.label}
            </NavLink>
          ))}
        </nav>
      </div>
      {app.isPending ? (
        <Skeleton lines={3} height="card" />
      ) : app.isError ? (
        <ErrorPanel error={app.error} onRetry={() => void app.refetch()} title="This app could not be loaded" />
      ) : (
        <Outlet context={app.data.app} />
      )}
    </>
  );
}
