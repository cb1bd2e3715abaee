import { Link } from 'react-router';
import { ApiError } from '../../api/client.js';
import { ErrorMessage, ErrorPanel } from '../../components/error-panel.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import {
  SUBSCRIBE_TIMEOUT_MS,
  TryItError,
  useBrowserPushState,
  useSendTestNotification,
  useSubscribeThisBrowser,
} from './use-try-it.js';
import './try-it.css';

const isDenial = (error: unknown) => error instanceof TryItError && error.key === 'try.denied';

function TryItMessage({ error }: { error: unknown }) {
  const { t, rich } = useI18n();
  const app = useCurrentApp();
  if (error instanceof ApiError && error.code === 'ORIGIN_NOT_ALLOWED') {
    return (
      <div className="error-message" role="alert" data-code="ORIGIN_NOT_ALLOWED">
        <p>
          {rich('try.originNotAllowed', {
            origin: <code>{window.location.origin}</code>,
            settings: <Link to={`/apps/${app.id}/settings`}>{t('app.tab.settings')}</Link>,
          })}
        </p>
      </div>
    );
  }
  if (error instanceof TryItError && error.key === 'try.timeout') {
    // This browser cannot reach its push service: another browser can, through the /demo page.
    return (
      <>
        <ErrorMessage error={error} />
        <p data-testid="demo-next">
          {rich('try.demoNext', {
            demo: <a href="/demo">/demo</a>,
            keys: <Link to={`/apps/${app.id}/keys`}>{t('app.tab.keys')}</Link>,
          })}
        </p>
      </>
    );
  }
  return <ErrorMessage error={error} />;
}

export function TryItPage() {
  const app = useCurrentApp();
  const { t, rich } = useI18n();
  usePageTitle(`${t('app.tab.try')} · ${app.name}`);

  const state = useBrowserPushState();
  const subscribe = useSubscribeThisBrowser(app.id);
  const test = useSendTestNotification(app.id);

  return (
    <section className="panel">
      <h2>{t('try.title')}</h2>
      <p className="muted">{rich('try.lead', { app: <strong>{app.name}</strong> })}</p>
      <ol className="try-steps">
        <li>
          <h3>{t('try.subscribeTitle')}</h3>
          {state.isPending ? (
            <Skeleton />
          ) : state.isError ? (
            <ErrorPanel error={state.error} onRetry={() => void state.refetch()} title={t('try.sdkFailed')} />
          ) : (
            <p role="status" data-testid="push-state" data-state={state.data}>
              {t(`try.state.${state.data}` as MessageKey)}
            </p>
          )}
          <p className="hint">
            {rich('try.keyNote', {
              scope: <code>subscribe_only</code>,
              name: t('try.keyName'),
              keys: <Link to={`/apps/${app.id}/keys`}>{t('app.tab.keys')}</Link>,
            })}
          </p>
          {/* A refusal the status line above already says (blocked) is not said twice. */}
          {subscribe.isError && !(state.data === 'denied' && isDenial(subscribe.error)) && (
            <TryItMessage error={subscribe.error} />
          )}
          {subscribe.isPending && (
            <p className="hint" role="status">
              {t('try.waiting', { seconds: SUBSCRIBE_TIMEOUT_MS / 1000 })}
            </p>
          )}
          {subscribe.data && (
            <p className="success" role="status">
              {subscribe.data.created ? t('try.subscribed') : t('try.subscribedKnown')}
            </p>
          )}
          <button
            type="button"
            className="button button-primary"
            onClick={() => subscribe.mutate()}
            disabled={subscribe.isPending || state.data === 'unsupported' || state.data === 'denied'}
          >
            {subscribe.isPending
              ? t('try.subscribing')
              : state.data === 'subscribed'
                ? t('try.subscribeAgain')
                : t('try.subscribe')}
          </button>
        </li>
        <li>
          <h3>{t('try.testTitle')}</h3>
          {test.isError && <TryItMessage error={test.error} />}
          {test.isSuccess && (
            <p className="success" role="status">
              {t('try.sent')}
            </p>
          )}
          <button
            type="button"
            className="button"
            onClick={() => test.mutate()}
            disabled={test.isPending || state.data !== 'subscribed'}
          >
            {test.isPending ? t('try.sending') : t('try.send')}
          </button>
        </li>
      </ol>
    </section>
  );
}
