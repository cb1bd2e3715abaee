import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorPanel } from '../components/error-panel.js';
import { SendsChart } from '../components/sends-chart.js';
import { Skeleton } from '../components/skeleton.js';
import { type AppWithStats, useCurrentApp } from './app-layout.js';

const numbers = new Intl.NumberFormat('en');
/** From this share of the month's limit on, the meter suggests a bigger plan. */
const NEAR_LIMIT = 0.8;

export const usageQuery = (appId: string) => ({
  queryKey: ['usage', appId],
  queryFn: () => call(api.GET('/api/v1/apps/{appId}/usage', { params: { path: { appId }, query: { days: 30 } } })),
});

function SendsMeter({ sends, limit }: { sends: number; limit: number | null }) {
  const share = limit ? Math.min(1, sends / limit) : 0;
  const near = limit !== null && share >= NEAR_LIMIT;
  return (
    <div className="stat-card">
      <span className="stat-label" id="sends-label">
        Sends this month
      </span>
      <span className="stat-value">
        {numbers.format(sends)}
        <span className="stat-of"> / {limit === null ? 'unlimited' : numbers.format(limit)}</span>
      </span>
      {/* biome-ignore lint/a11y/useSemanticElements: <meter> cannot be styled alike across browsers */}
      <div
        className={`meter${near ? ' meter-near' : ''}`}
        role="meter"
        aria-labelledby="sends-label"
        aria-valuemin={0}
        aria-valuemax={limit ?? 1}
        aria-valuenow={limit === null ? 0 : Math.min(sends, limit)}
        aria-valuetext={limit === null ? `${sends} sends, no limit` : `${sends} of ${limit} sends`}
      >
        <div className="meter-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      {near ? (
        <Link to="/pricing" className="stat-note">
          {share >= 1 ? 'Limit reached: upgrade to keep sending' : 'Near your limit: see bigger plans'}
        </Link>
      ) : (
        <span className="stat-note muted">Resets on the 1st (UTC)</span>
      )}
    </div>
  );
}

function installSnippets(app: AppWithStats, origin: string) {
  return {
    worker: `importScripts('${origin}/sdk/sw.js');`,
    page: `<script src="${origin}/sdk/web-sdk.js"></script>
<button id="notify-me" type="button">Notify me</button>
<script>
  document.getElementById('notify-me').addEventListener('click', () =>
    WebPush.subscribe({ baseUrl: '${origin}', apiKey: 'wpk_…your subscribe_only key' }));
</script>`,
    send: `curl ${origin}/api/v1/notify \\
  -H 'authorization: Bearer wpk_…your notify key' -H 'content-type: application/json' \\
  -d '{"title":"Hello","body":"From ${app.name.replace(/'/g, '')}"}'`,
  };
}

function Snippet({ id, title, code }: { id: string; title: string; code: string }) {
  return (
    <figure className="snippet">
      <figcaption id={id}>
        {title} <CopyButton text={code} label="Copy" />
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
  const usage = useQuery(usageQuery(app.id));
  useEffect(() => {
    document.title = `${app.name} · Web Push`;
  }, [app.name]);
  const snippets = installSnippets(app, window.location.origin);

  return (
    <>
      <section className="stat-grid" aria-label="Statistics">
        <div className="stat-card">
          <span className="stat-label">Active subscribers</span>
          <span className="stat-value">{numbers.format(app.stats.activeSubscribers)}</span>
          <Link to={`/apps/${app.id}/subscribers`} className="stat-note">
            See subscribers
          </Link>
        </div>
        <div className="stat-card">
          <span className="stat-label">Expired subscribers</span>
          <span className="stat-value">{numbers.format(app.stats.expiredSubscribers)}</span>
          <span className="stat-note muted">Browsers that unsubscribed</span>
        </div>
        {usage.data ? (
          <SendsMeter sends={usage.data.month.sends} limit={usage.data.month.limit ?? null} />
        ) : (
          <div className="stat-card">
            <span className="stat-label">Sends this month</span>
            <span className="stat-value">{numbers.format(app.stats.sendsThisMonth)}</span>
            <div className="meter" aria-hidden="true" />
            <span className="stat-note muted">Loading the plan limit…</span>
          </div>
        )}
      </section>

      <section className="panel">
        <h2>Daily sends, last 30 days</h2>
        {usage.isPending ? (
          <Skeleton height="chart" />
        ) : usage.isError ? (
          <ErrorPanel error={usage.error} onRetry={() => void usage.refetch()} title="Usage could not be loaded" />
        ) : (
          <SendsChart days={usage.data.days} />
        )}
      </section>

      <section className="panel">
        <h2>Add push to your site</h2>
        <p className="muted">
          Put these on your site with a <Link to={`/apps/${app.id}/keys`}>subscribe_only API key</Link> of this app. The
          service worker must be served from your own origin, at <code>/sw.js</code>.
        </p>
        <Snippet id="snippet-worker" title="1. /sw.js on your site" code={snippets.worker} />
        <Snippet id="snippet-page" title="2. Your page" code={snippets.page} />
        <Snippet id="snippet-send" title="3. Send from your server" code={snippets.send} />
        <h3>VAPID public key</h3>
        <p className="muted">The SDK fetches it for you; use it if you subscribe browsers yourself.</p>
        <div className="key-row">
          <code className="break-all" id="vapid-key">
            {app.vapidPublicKey}
          </code>
          <CopyButton text={app.vapidPublicKey} label="Copy key" />
        </div>
      </section>
    </>
  );
}
