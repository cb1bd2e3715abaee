import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiError, api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorMessage, ErrorPanel } from '../components/error-panel.js';
import { Skeleton } from '../components/skeleton.js';
import { useCurrentApp } from './app-layout.js';

export const WEBHOOK_EVENTS = [
  { id: 'notification.completed', explain: 'A send finished and at least one push was delivered.' },
  { id: 'notification.failed', explain: 'A send finished without delivering anything (or was over the limit).' },
  { id: 'subscription.expired', explain: 'A push service said a subscription is gone (404/410).' },
] as const;
type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]['id'];

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' });

const webhookQuery = (appId: string) => ({
  queryKey: ['webhook', appId],
  // No webhook yet is an answer (404), not an error to show.
  queryFn: async () => {
    try {
      return (await call(api.GET('/api/v1/apps/{appId}/webhook', { params: { path: { appId } } }))).webhook;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  },
});

const deliveriesQuery = (appId: string) => ({
  queryKey: ['webhook-deliveries', appId],
  queryFn: () =>
    call(
      api.GET('/api/v1/apps/{appId}/webhook/deliveries', {
        params: { path: { appId }, query: { limit: 20 } },
      }),
    ),
  refetchInterval: 5_000,
});

function NewWebhookSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <div className="secret-panel webhook-secret-panel">
      <p className="warning" role="alert">
        Copy the signing secret now: it will not be shown again. Your receiver checks each request’s{' '}
        <code>webhook-signature</code> with it.
      </p>
      <div className="key-row">
        <code className="break-all" data-testid="webhook-secret">
          {secret}
        </code>
        <CopyButton text={secret} label="Copy signing secret" />
      </div>
      <button type="button" className="button" onClick={onDone}>
        I have copied it
      </button>
    </div>
  );
}

function WebhookForm({
  current,
  onSecret,
}: {
  current: { url: string; events: WebhookEvent[] } | null;
  onSecret: (secret: string | null) => void;
}) {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(current?.url ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>(current?.events ?? WEBHOOK_EVENTS.map((event) => event.id));
  const save = useMutation({
    mutationFn: () =>
      call(
        api.PUT('/api/v1/apps/{appId}/webhook', {
          params: { path: { appId: app.id } },
          body: { url: url.trim(), events },
        }),
      ),
    onSuccess: async (answer) => {
      // The secret is in every PUT answer; show it only when it is new (the webhook was just created).
      onSecret(current === null ? answer.webhook.secret : null);
      await queryClient.invalidateQueries({ queryKey: ['webhook', app.id] });
    },
  });
  const toggle = (id: WebhookEvent, on: boolean) =>
    setEvents((list) => (on ? [...list, id] : list.filter((event) => event !== id)));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={onSubmit}>
      <div className="field">
        <label htmlFor="webhook-url">Endpoint URL</label>
        <input
          id="webhook-url"
          name="webhook-url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://example.com/webhooks/push"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          aria-invalid={save.error ? true : undefined}
          aria-describedby="webhook-url-hint webhook-url-error"
        />
        <p className="hint" id="webhook-url-hint">
          <code>https://</code> on a public address: private, loopback and link-local addresses are refused.
        </p>
        <ErrorMessage error={save.error} id="webhook-url-error" />
      </div>
      <fieldset className="scopes">
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((option) => (
          <label key={option.id} className="scope-option">
            <input
              type="checkbox"
              name="webhook-events"
              value={option.id}
              checked={events.includes(option.id)}
              onChange={(event) => toggle(option.id, event.target.checked)}
            />
            <span>
              <code>{option.id}</code>
              <span className="hint">{option.explain}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {save.isSuccess && (
        <p className="success" role="status">
          Webhook saved.
        </p>
      )}
      <button type="submit" className="button button-primary" disabled={save.isPending || events.length === 0}>
        {save.isPending ? 'Saving…' : current ? 'Save webhook' : 'Create webhook'}
      </button>
    </form>
  );
}

function Deliveries() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const deliveries = useQuery(deliveriesQuery(app.id));
  const [sent, setSent] = useState<string | null>(null);
  const resend = useMutation({
    mutationFn: (deliveryId: string) =>
      call(
        api.POST('/api/v1/apps/{appId}/webhook/deliveries/{deliveryId}/retry', {
          params: { path: { appId: app.id, deliveryId } },
        }),
      ),
    onSuccess: async (answer) => {
      setSent(answer.delivery.messageId);
      await queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', app.id] });
    },
  });
  return (
    <>
      <h3>Recent deliveries</h3>
      {deliveries.isPending ? (
        <Skeleton lines={3} />
      ) : deliveries.isError ? (
        <ErrorPanel error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.deliveries.length === 0 ? (
        <p className="empty">No deliveries yet. Events appear here once something happens.</p>
      ) : (
        <div className="table-wrap">
          <table aria-label="Recent webhook deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Answer</th>
                <th scope="col">Time</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.deliveries.map((attempt) => {
                const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
                return (
                  <tr key={attempt.id} data-testid="webhook-delivery">
                    <td>
                      <code>{attempt.type}</code>
                      {attempt.messageStatus === 'pending' && <span className="hint"> retrying</span>}
                    </td>
                    <td>
                      <span className={`status ${ok ? 'status-completed' : 'status-failed'}`}>
                        {attempt.status ?? 'no answer'}
                      </span>
                    </td>
                    <td>{attempt.durationMs} ms</td>
                    <td className="answer-snippet">
                      <code className="break-all">{(attempt.response ?? attempt.error ?? '').slice(0, 120)}</code>
                    </td>
                    <td>{dateFormat.format(new Date(attempt.createdAt))}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="button button-small"
                        aria-label={`Send again ${attempt.type}`}
                        disabled={resend.isPending}
                        onClick={() => resend.mutate(attempt.id)}
                      >
                        Send again
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ErrorMessage error={resend.error} />
      {sent && !resend.error && (
        <p className="success" role="status">
          Queued again with the same <code>webhook-id</code> {sent}.
        </p>
      )}
    </>
  );
}

/** The app's webhook: endpoint and events, the signing secret once, rotation, removal, recent deliveries. */
export function WebhookSettings() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const webhook = useQuery(webhookQuery(app.id));
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = async () => {
    const answer = await call(
      api.POST('/api/v1/apps/{appId}/webhook/rotate-secret', { params: { path: { appId: app.id } } }),
    );
    setSecret(answer.webhook.secret);
  };
  const remove = async () => {
    await call(api.DELETE('/api/v1/apps/{appId}/webhook', { params: { path: { appId: app.id } } }));
    setSecret(null);
    await queryClient.invalidateQueries({ queryKey: ['webhook', app.id] });
  };
  return (
    <section className="panel" aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook</h2>
      <p className="muted">
        We <code>POST</code> a signed JSON event (Standard Webhooks) to your endpoint when a send finishes or a
        subscription expires, and retry with backoff for more than 24 hours until it answers 2xx.
      </p>
      {webhook.isPending ? (
        <Skeleton lines={3} />
      ) : webhook.isError ? (
        <ErrorPanel error={webhook.error} onRetry={() => void webhook.refetch()} />
      ) : (
        <>
          {secret && <NewWebhookSecret secret={secret} onDone={() => setSecret(null)} />}
          <WebhookForm
            key={webhook.data ? 'existing' : 'new'}
            current={webhook.data}
            onSecret={(next) => next && setSecret(next)}
          />
          {webhook.data && (
            <>
              <div className="button-row">
                <ConfirmButton
                  label="Rotate signing secret"
                  title="Rotate the signing secret?"
                  confirmLabel="Rotate secret"
                  onConfirm={rotate}
                >
                  <p>
                    The old secret stops signing at once: your receiver must check signatures with the new one, shown
                    after this step.
                  </p>
                </ConfirmButton>
                <ConfirmButton
                  label="Delete webhook"
                  title="Delete this webhook?"
                  confirmLabel="Delete webhook"
                  onConfirm={remove}
                >
                  <p>No more events are sent, and those not yet delivered are dropped.</p>
                </ConfirmButton>
              </div>
              <Deliveries />
            </>
          )}
        </>
      )}
    </section>
  );
}
