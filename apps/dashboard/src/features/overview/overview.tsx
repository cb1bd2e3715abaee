import { Link } from 'react-router';
import { CopyButton } from '../../components/copy-button.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { roleAllows } from '../apps/app-role.js';
import { type AppWithStats, useCurrentApp } from '../apps/use-apps.js';
import { StatsPanel } from './stats-panel.js';
import { useUsage } from './use-usage.js';
import './overview.css';

/** From this share of the month's limit on, the meter suggests a bigger plan. */
const NEAR_LIMIT = 0.8;

function SendsMeter({ sends, limit }: { sends: number; limit: number | null }) {
  const { t, number } = useI18n();
  const share = limit ? Math.min(1, sends / limit) : 0;
  const near = limit !== null && share >= NEAR_LIMIT;
  return (
    <div className="stat-card">
      <span className="stat-label" id="sends-label">
        {t('overview.sends')}
      </span>
      <span className="stat-value">
        {number(sends)}
        <span className="stat-of"> / {limit === null ? t('overview.unlimited') : number(limit)}</span>
      </span>
      {/* biome-ignore lint/a11y/useSemanticElements: <meter> cannot be styled alike across browsers */}
      <div
        className={`meter${near ? ' meter-near' : ''}`}
        role="meter"
        aria-labelledby="sends-label"
        aria-valuemin={0}
        aria-valuemax={limit ?? 1}
        aria-valuenow={limit === null ? 0 : Math.min(sends, limit)}
        aria-valuetext={
          limit === null ? t('overview.meterUnlimited', { sends }) : t('overview.meterOf', { sends, limit })
        }
      >
        <div className="meter-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      {near ? (
        <Link to="/pricing" className="stat-note">
          {share >= 1 ? t('overview.limitReached') : t('overview.nearLimit')}
        </Link>
      ) : (
        <span className="stat-note muted">{t('overview.resets')}</span>
      )}
    </div>
  );
}

function installSnippets(
  app: AppWithStats,
  origin: string,
  { button, subscribeKey, notifyKey }: { button: string; subscribeKey: string; notifyKey: string },
) {
  return {
    worker: `importScripts('${origin}/sdk/sw.js');`,
    page: `<script src="${origin}/sdk/web-sdk.js"></script>
<button id="notify-me" type="button">${button}</button>
<script>
  document.getElementById('notify-me').addEventListener('click', () =>
    WebPush.subscribe({ baseUrl: '${origin}', apiKey: '${subscribeKey}' }));
</script>`,
    send: `curl ${origin}/api/v1/notify \\
  -H 'authorization: Bearer ${notifyKey}' -H 'content-type: application/json' \\
  -d '{"title":"Hello","body":"From ${app.name.replace(/'/g, '')}"}'`,
  };
}

function Snippet({ id, title, code }: { id: string; title: string; code: string }) {
  const { t } = useI18n();
  return (
    <figure className="snippet">
      <figcaption id={id}>
        {title} <CopyButton text={code} label={t('common.copy')} />
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling code block must be reachable by keyboard */}
      <pre tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}

export function OverviewPage() {
  const app = useCurrentApp();
  const usage = useUsage(app.id);
  const { t, rich, number } = useI18n();
  usePageTitle(app.name);
  const snippets = installSnippets(app, window.location.origin, {
    button: t('overview.snippetButton'),
    subscribeKey: t('overview.snippetSubscribeKey'),
    notifyKey: t('overview.snippetNotifyKey'),
  });

  return (
    <>
      <section className="stat-grid" aria-label={t('overview.stats')}>
        <div className="stat-card">
          <span className="stat-label">{t('overview.active')}</span>
          <span className="stat-value">{number(app.stats.activeSubscribers)}</span>
          <Link to={`/apps/${app.id}/subscribers`} className="stat-note">
            {t('overview.seeSubscribers')}
          </Link>
        </div>
        <div className="stat-card">
          <span className="stat-label">{t('overview.expired')}</span>
          <span className="stat-value">{number(app.stats.expiredSubscribers)}</span>
          <span className="stat-note muted">{t('overview.expiredNote')}</span>
        </div>
        {usage.data ? (
          <SendsMeter sends={usage.data.month.sends} limit={usage.data.month.limit ?? null} />
        ) : (
          <div className="stat-card">
            <span className="stat-label">{t('overview.sends')}</span>
            <span className="stat-value">{number(app.stats.sendsThisMonth)}</span>
            <div className="meter" aria-hidden="true" />
            <span className="stat-note muted">{t('overview.loadingLimit')}</span>
          </div>
        )}
      </section>

      <StatsPanel appId={app.id} />

      <section className="panel">
        <h2>{t('overview.installTitle')}</h2>
        <p className="muted">
          {rich('overview.installLead', {
            keyLink: roleAllows(app.role, 'admin') ? (
              <Link to={`/apps/${app.id}/keys`}>{t('overview.keyLink')}</Link>
            ) : (
              t('overview.keyLink')
            ),
            path: <code>/sw.js</code>,
          })}
        </p>
        <Snippet id="snippet-worker" title={t('overview.snippetWorker')} code={snippets.worker} />
        <Snippet id="snippet-page" title={t('overview.snippetPage')} code={snippets.page} />
        <Snippet id="snippet-send" title={t('overview.snippetSend')} code={snippets.send} />
        <h3>{t('overview.vapidTitle')}</h3>
        <p className="muted">{t('overview.vapidLead')}</p>
        <div className="key-row">
          <code className="break-all" id="vapid-key">
            {app.vapidPublicKey}
          </code>
          <CopyButton text={app.vapidPublicKey} label={t('overview.copyKey')} />
        </div>
      </section>
    </>
  );
}
