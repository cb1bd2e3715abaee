import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { useCurrentApp } from './app-layout.js';
import { type Notification, notificationsQuery } from './notifications.js';

/** CONTRACT "Sending": the payload is at most 3,072 bytes. */
export const MAX_PAYLOAD_BYTES = 3_072;

interface Draft {
  title: string;
  body: string;
  url: string;
  icon: string;
  badge: string;
}
const EMPTY: Draft = { title: '', body: '', url: '', icon: '', badge: '' };

/** What the request carries: title and body always, url/icon/badge only when filled in. */
export function payloadOf(draft: Draft) {
  const payload: { title: string; body: string; url?: string; icon?: string; badge?: string } = {
    title: draft.title,
    body: draft.body,
  };
  if (draft.url) payload.url = draft.url;
  if (draft.icon) payload.icon = draft.icon;
  if (draft.badge) payload.badge = draft.badge;
  return payload;
}

/** Exactly the API's rule: UTF-8 bytes of JSON.stringify of the present fields, escapes included. */
export const payloadBytes = (draft: Draft) => new TextEncoder().encode(JSON.stringify(payloadOf(draft))).length;

const STEPS = ['queued', 'sending', 'completed'] as const;
const isFinished = (status: string | undefined) =>
  status === 'completed' || status === 'failed' || status === 'canceled';

function Progress({ appId, accepted }: { appId: string; accepted: { id: string; targets: number } }) {
  // The first page of the history, newest first, holds the send just made: polled until it ends.
  const page = useQuery({
    ...notificationsQuery(appId, null),
    refetchInterval: (query) => {
      const found = query.state.data?.notifications.find((item) => item.id === accepted.id);
      return isFinished(found?.status) ? false : 1_000;
    },
  });
  const notification: Partial<Notification> = page.data?.notifications.find((item) => item.id === accepted.id) ?? {
    status: 'queued',
    targets: accepted.targets,
  };
  const status = notification.status ?? 'queued';
  const reached = status === 'failed' ? 2 : Math.max(0, STEPS.indexOf(status as (typeof STEPS)[number]));
  return (
    <section className="panel" aria-labelledby="progress-title">
      <h2 id="progress-title">Delivery</h2>
      <ol className="steps" aria-label="Progress">
        {STEPS.map((step, index) => (
          <li
            key={step}
            className={index <= reached ? 'step step-done' : 'step'}
            aria-current={index === reached ? 'step' : undefined}
          >
            {step === 'completed' && status === 'failed' ? 'failed' : step}
          </li>
        ))}
      </ol>
      <p role="status" data-testid="send-status" data-status={status}>
        {status === 'completed' || status === 'failed' ? 'Finished' : 'In progress'}: {notification.sent ?? 0} sent,{' '}
        {notification.failed ?? 0} failed, {notification.expired ?? 0} expired of{' '}
        {notification.targets ?? accepted.targets}{' '}
        {(notification.targets ?? accepted.targets) === 1 ? 'subscriber' : 'subscribers'}.
      </p>
      {page.isError && <ErrorMessage error={page.error} />}
      <p>
        <Link to={`/apps/${appId}/notifications`}>See all notifications</Link>
      </p>
    </section>
  );
}

function Preview({ draft }: { draft: Draft }) {
  let host = '';
  try {
    host = draft.url ? new URL(draft.url).host : '';
  } catch {
    host = '';
  }
  const icon = draft.icon.startsWith('https://') ? draft.icon : null;
  return (
    <figure className="preview" aria-label="Preview">
      <figcaption className="muted">Preview (browsers differ in the details)</figcaption>
      <div className="preview-card">
        {icon ? (
          <img src={icon} alt="" className="preview-icon" />
        ) : (
          <span className="preview-icon" aria-hidden="true" />
        )}
        <div className="preview-text">
          <strong className="preview-title">{draft.title || 'Title'}</strong>
          <span className="preview-body">{draft.body || 'The body of your notification.'}</span>
          <span className="preview-host muted">{host || window.location.host}</span>
        </div>
      </div>
    </figure>
  );
}

export function SendPage() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  useEffect(() => {
    document.title = `Send · ${app.name} · Web Push`;
  }, [app.name]);
  const bytes = payloadBytes(draft);
  const tooLarge = bytes > MAX_PAYLOAD_BYTES;

  const send = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/apps/{appId}/notifications', {
          params: { path: { appId: app.id } },
          body: payloadOf(draft),
        }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['usage', app.id] });
      await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!tooLarge) send.mutate();
  };
  const set = (field: keyof Draft) => (event: { target: { value: string } }) =>
    setDraft((current) => ({ ...current, [field]: event.target.value }));

  return (
    <>
      <div className="send-grid">
        <section className="panel">
          <h2>New notification</h2>
          <p className="muted">
            Goes to all {app.stats.activeSubscribers} active{' '}
            {app.stats.activeSubscribers === 1 ? 'subscriber' : 'subscribers'} of this app.
          </p>
          <form onSubmit={onSubmit}>
            <Field id="title" label="Title" required value={draft.title} onChange={set('title')} />
            <div className="field">
              <label htmlFor="body">Body</label>
              <textarea id="body" name="body" required rows={3} value={draft.body} onChange={set('body')} />
            </div>
            <Field
              id="url"
              label="Link (optional)"
              type="url"
              placeholder="https://example.com/news"
              value={draft.url}
              onChange={set('url')}
              hint="Opened when the notification is clicked."
            />
            <Field
              id="icon"
              label="Icon (optional)"
              type="url"
              placeholder="https://example.com/icon.png"
              value={draft.icon}
              onChange={set('icon')}
            />
            <Field
              id="badge"
              label="Badge (optional)"
              type="url"
              placeholder="https://example.com/badge.png"
              value={draft.badge}
              onChange={set('badge')}
              hint="A small monochrome image some systems show in the status bar."
            />
            <p className={tooLarge ? 'byte-counter over' : 'byte-counter'} id="byte-counter" aria-live="polite">
              {bytes.toLocaleString('en')} / {MAX_PAYLOAD_BYTES.toLocaleString('en')} bytes
              {tooLarge && ': too large, shorten the text'}
            </p>
            <ErrorMessage error={send.error} />
            <button
              type="submit"
              className="button button-primary"
              disabled={send.isPending || tooLarge}
              aria-describedby="byte-counter"
            >
              {send.isPending ? 'Sending…' : 'Send notification'}
            </button>
          </form>
        </section>
        <Preview draft={draft} />
      </div>
      {send.data && <Progress key={send.data.notification.id} appId={app.id} accepted={send.data.notification} />}
    </>
  );
}
