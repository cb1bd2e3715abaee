import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.js';
import { ErrorMessage, ErrorPanel } from '../components/error-panel.js';
import { Skeleton } from '../components/skeleton.js';
import { currentSubscription, DASHBOARD_WORKER_URL, loadWebPushSdk } from '../components/web-sdk.js';
import { useCurrentApp } from './app-layout.js';

export const TRY_IT_KEY_NAME = 'Dashboard: try it in this browser';

const STATE_TEXT: Record<string, string> = {
  unsupported: 'This browser cannot receive web push here (on iOS, add the site to the home screen first).',
  denied: 'Notifications are blocked for this site. Allow them in the site settings, then reload.',
  prompt: 'Not subscribed yet: the browser will ask for permission.',
  unsubscribed: 'Not subscribed yet.',
  subscribed: 'This browser is subscribed.',
};

export function TryItPage() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  useEffect(() => {
    document.title = `Try it · ${app.name} · Web Push`;
  }, [app.name]);

  const state = useQuery({
    queryKey: ['browser-push-state'],
    queryFn: async () => (await loadWebPushSdk()).getState({ serviceWorkerUrl: DASHBOARD_WORKER_URL }),
    retry: false,
  });

  // A subscribe_only key made for this (its secret stays in this page's memory only).
  const subscribe = useMutation({
    mutationFn: async () => {
      const sdk = await loadWebPushSdk();
      const key = await call(
        api.POST('/api/v1/apps/{appId}/keys', {
          params: { path: { appId: app.id } },
          body: { scope: 'subscribe_only', name: TRY_IT_KEY_NAME },
        }),
      );
      await queryClient.invalidateQueries({ queryKey: ['keys', app.id] });
      return sdk.subscribe({
        baseUrl: window.location.origin,
        apiKey: key.secret,
        serviceWorkerUrl: DASHBOARD_WORKER_URL,
      });
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['browser-push-state'] });
      await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
    },
  });

  const test = useMutation({
    mutationFn: async () => {
      const subscription = await currentSubscription();
      if (!subscription) throw new Error('This browser has no subscription: subscribe it first.');
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
      <h2>Try it in this browser</h2>
      <p className="muted">
        Subscribe the browser you are using to <strong>{app.name}</strong> with the web SDK, exactly as your visitors
        will, then send it a test notification. Test notifications are not stored and do not count toward your plan.
      </p>
      <ol className="try-steps">
        <li>
          <h3>Subscribe this browser</h3>
          {state.isPending ? (
            <Skeleton />
          ) : state.isError ? (
            <ErrorPanel error={state.error} onRetry={() => void state.refetch()} title="The web SDK could not start" />
          ) : (
            <p role="status" data-testid="push-state" data-state={state.data}>
              {STATE_TEXT[state.data]}
            </p>
          )}
          <p className="hint">
            This creates a <code>subscribe_only</code> key named “{TRY_IT_KEY_NAME}” for this app; you can revoke it on
            the <Link to={`/apps/${app.id}/keys`}>API keys</Link> page afterwards.
          </p>
          <ErrorMessage error={subscribe.error} />
          {subscribe.data && (
            <p className="success" role="status">
              Subscribed{subscribe.data.created ? '' : ' (the service already knew this browser)'}.
            </p>
          )}
          <button
            type="button"
            className="button button-primary"
            onClick={() => subscribe.mutate()}
            disabled={subscribe.isPending || state.data === 'unsupported' || state.data === 'denied'}
          >
            {subscribe.isPending
              ? 'Subscribing…'
              : state.data === 'subscribed'
                ? 'Subscribe again'
                : 'Subscribe this browser'}
          </button>
        </li>
        <li>
          <h3>Send a test notification</h3>
          <ErrorMessage error={test.error} />
          {test.isSuccess && (
            <p className="success" role="status">
              Sent: the push service accepted it. It should appear in a moment.
            </p>
          )}
          <button
            type="button"
            className="button"
            onClick={() => test.mutate()}
            disabled={test.isPending || state.data !== 'subscribed'}
          >
            {test.isPending ? 'Sending…' : 'Send a test notification'}
          </button>
        </li>
      </ol>
    </section>
  );
}
