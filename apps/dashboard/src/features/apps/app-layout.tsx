import { Link, NavLink, Outlet, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError } from '../../api/client.js';
import { ErrorPanel } from '../../components/error-panel.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useWebhook } from '../webhooks/use-webhook.js';
import { type AppRole, roleAllows } from './app-role.js';
import { useApp, useApps } from './use-apps.js';
import './apps.css';

/** Each tab with the least role that may use it (docs/accounts.md, "Teams"): others do not see it. */
const tabs: { to: string; label: MessageKey; end?: boolean; needs: AppRole }[] = [
  { to: '', label: 'app.tab.overview', end: true, needs: 'viewer' },
  { to: 'send', label: 'app.tab.send', needs: 'editor' },
  { to: 'notifications', label: 'app.tab.notifications', needs: 'viewer' },
  { to: 'subscribers', label: 'app.tab.subscribers', needs: 'viewer' },
  { to: 'segments', label: 'app.tab.segments', needs: 'viewer' },
  { to: 'keys', label: 'app.tab.keys', needs: 'admin' },
  { to: 'members', label: 'app.tab.members', needs: 'viewer' },
  { to: 'try', label: 'app.tab.try', needs: 'admin' },
  { to: 'audit-log', label: 'app.tab.auditLog', needs: 'admin' },
  { to: 'settings', label: 'app.tab.settings', needs: 'admin' },
];

function MissingApp() {
  const { t } = useI18n();
  usePageTitle(t('app.missingTitle'));
  return (
    <section className="panel narrow" data-testid="missing-app">
      <h1>{t('app.missingTitle')}</h1>
      <p>{t('app.missingBody')}</p>
      <p>
        <Link to="/" className="button button-primary">
          {t('app.backToApps')}
        </Link>
      </p>
    </section>
  );
}

/** Another of the account's apps, on the same tab; shown when there is more than one. */
function AppSwitcher({ appId }: { appId: string }) {
  const { t } = useI18n();
  const apps = useApps();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const list = apps.data?.apps ?? [];
  if (list.length < 2 || !list.some((app) => app.id === appId)) return null;
  const tab = pathname.slice(`/apps/${appId}`.length); // '' or '/send', '/keys', …
  return (
    <div className="field field-inline app-switcher">
      <label htmlFor="app-switcher">{t('app.switch')}</label>
      <select id="app-switcher" value={appId} onChange={(event) => void navigate(`/apps/${event.target.value}${tab}`)}>
        {list.map((app) => (
          <option key={app.id} value={app.id}>
            {app.name}
          </option>
        ))}
      </select>
    </div>
  );
}

/** On every tab but Settings (which has the full banner): the app's webhook is disabled. */
function WebhookDisabledNotice({ appId }: { appId: string }) {
  const { t } = useI18n();
  const { pathname } = useLocation();
  const webhook = useWebhook(appId);
  if (webhook.data?.status !== 'disabled' || pathname.endsWith('/settings')) return null;
  return (
    <div className="panel banner breaker-banner breaker-disabled" role="alert" data-testid="webhook-disabled-notice">
      <p>{t('webhook.disabledNotice', { error: webhook.data.lastError?.reason ?? '' })}</p>
      <Link to={`/apps/${appId}/settings`} className="button button-small">
        {t('webhook.disabledNoticeLink')}
      </Link>
    </div>
  );
}

/** A tab the caller's role does not open (a link kept from before a role change, or typed by hand). */
function NotAllowed({ role }: { role: AppRole }) {
  const { t } = useI18n();
  return (
    <section className="panel" data-testid="not-allowed">
      <h2>{t('app.notAllowedTitle')}</h2>
      <p>{t('app.notAllowedBody', { role: t(`members.role.${role}` as MessageKey) })}</p>
    </section>
  );
}

export function AppLayout() {
  const { t } = useI18n();
  const { appId = '' } = useParams();
  const { pathname } = useLocation();
  const app = useApp(appId);
  const role = app.data?.app.role ?? 'viewer';
  const tabHere = tabs.find((tab) => tab.to !== '' && pathname.startsWith(`/apps/${appId}/${tab.to}`));
  const allowedHere = !tabHere || roleAllows(role, tabHere.needs);
  // A 404 is an answer, not a failure to retry: no tabs into an app that is not there, a way back instead.
  if (app.error instanceof ApiError && app.error.status === 404) return <MissingApp />;
  return (
    <>
      <div className="app-heading">
        <div className="app-title-row">
          {app.data ? <h1>{app.data.app.name}</h1> : <div className="skeleton skeleton-title" aria-hidden="true" />}
          <AppSwitcher appId={appId} />
        </div>
        <nav aria-label={t('app.nav')} className="tabs">
          {tabs
            .filter((tab) => roleAllows(role, tab.needs))
            .map((tab) => (
              <NavLink key={tab.to} to={tab.to ? `/apps/${appId}/${tab.to}` : `/apps/${appId}`} end={tab.end}>
                {t(tab.label)}
              </NavLink>
            ))}
        </nav>
      </div>
      {app.isPending ? (
        <Skeleton lines={3} height="card" />
      ) : app.isError ? (
        <ErrorPanel error={app.error} onRetry={() => void app.refetch()} title={t('app.loadFailed')} />
      ) : (
        <>
          <WebhookDisabledNotice appId={appId} />
          {allowedHere ? <Outlet context={app.data.app} /> : <NotAllowed role={role} />}
        </>
      )}
    </>
  );
}
