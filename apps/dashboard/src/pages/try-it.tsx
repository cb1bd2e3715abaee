import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiError, api, call } from '../api/client.js';
import { ErrorMessage, ErrorPanel, LocalError } from '../components/error-panel.js';
import { Skeleton } from '../components/skeleton.js';
import { currentSubscription, DASHBOARD_WORKER_URL, loadWebPushSdk } from '../components/web-sdk.js';
import { type MessageKey, useI18n, usePageTitle } from '../i18n/index.js';
import { useCurrentApp } from './app-layout.js';

export const TRY_IT_KEY_NAME = 'Dashboard: try it in this browser';

/** The longest a subscribe may take: a push service that cannot be reached otherwise never answers. */
export const SUBSCRIBE_TIMEOUT_MS = 20_000;

/**
 * One subscribe_only key per app and browser, kept in this browser's local storage and reused by
 * every click. A subscribe_only key is public by design (it sits in every customer's web page), so
 * keeping it where the page can read it gives nothing away; the key list shows it by its name.
 */
const storedKeyName = (appId: string) => `wp_try_key_${appId}`;

async function tryItKey(appId: string, fresh: boolean): Promise<string> {
  const stored = fresh ? null : localStorage.getItem(storedKeyName(appId));
  if (stored) return stored;
  const key = await call(
    api.POST('/api/v1/apps/{appId}/keys', {
      params: { path: { appId } },
      body: { scope: 'subscribe_only', name: TRY_IT_KEY_NAME },
    }),
  );
  localStorage.setItem(storedKeyName(appId), key.secret);
  return key.secret;
}

/** A failure of the "Try it" steps, with the message that names its likely cause. */
class TryItError extends LocalError {}

const withTimeout = <T,>(work: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new TryItError('try.timeout')), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });

/** The SDK's error (reason, and the API's code) as the dashboard shows it. */
function explain(error: unknown): unknown {
  const failure = error as { name?: string; reason?: string; code?: string; status?: number; message?: string };
  if (failure?.name !== 'WebPushError') return error;
  if (failure.reason === 'api' && failure.code) {
    return new ApiError(failure.status ?? 400, failure.code, failure.message ?? '');
  }
  if (failure.reason === 'permission-denied') {
    // Chromium refuses push in a private window with "permission denied" although permission was granted.
    return new TryItError(
      'Notification' in window && Notification.permission === 'granted' ? 'try.privateWindow' : 'try.denied',
    );
  }
  if (failure.reason === 'network') return new TryItError('try.network');
  if (failure.reason === 'unsupported') return new TryItError('try.unsupported');
  return new TryItError('try.serviceWorker');
}

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
  return <ErrorMessage error={error} />;
}

export function TryItPage() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const { t, rich } = useI18n();
  usePageTitle(`${t('app.tab.try')} · ${app.name}`);

  const state = useQuery({
    queryKey: ['browser-push-state'],
    queryFn: async () => (await loadWebPushSdk()).getState({ serviceWorkerUrl: DASHBOARD_WORKER_URL }),
    retry: false,
  });

  const subscribe = useMutation({
    mutationFn: async () => {
      const sdk = await loadWebPushSdk();
      const attempt = async (fresh: boolean) => {
        const apiKey = await tryItKey(app.id, fresh);
        if (fresh) await queryClient.invalidateQueries({ queryKey: ['keys', app.id] });
        return withTimeout(
          sdk.subscribe({ baseUrl: window.location.origin, apiKey, serviceWorkerUrl: DASHBOARD_WORKER_URL }),
          SUBSCRIBE_TIMEOUT_MS,
        );
      };
      try {
        return await attempt(false);
      } catch (error) {
        // The remembered key was revoked: make a new one, once.
        const revoked = (error as { code?: string } | null)?.code === 'INVALID_API_KEY';
        if (!revoked) throw explain(error);
        try {
          return await attempt(true);
        } catch (again) {
          throw explain(again);
        }
      }
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['browser-push-state'] });
      await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
    },
  });

  const test = useMutation({
    mutationFn: async () => {
      const subscription = await currentSubscription();
      if (!subscription) throw new TryItError('try.noSubscription');
      return call(
        api.POST('/api/v1/apps/{appId}/test-notification', {
          params: { path: { appId: app.id } },
          body: { subscription },
        }),
      );
    },
  });

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
              name: TRY_IT_KEY_NAME,
              keys: <Link to={`/apps/${app.id}/keys`}>{t('app.tab.keys')}</Link>,
            })}
          </p>
          {subscribe.isError && <TryItMessage error={subscribe.error} />}
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
