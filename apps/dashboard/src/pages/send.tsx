import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { useCurrentApp } from './app-layout.js';
import { CancelSend, type Notification, notificationsQuery } from './notifications.js';
import { EMPTY_RICH, type RichDraft, RichFields, RichPreview, richPayloadOf } from './send-rich-fields.js';

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

/** CONTRACT "Audiences": 1 to 1,000 uids; "Scheduled sends": in the future, at most 30 days ahead. */
export const MAX_UIDS = 1_000;
const MAX_AHEAD_MS = 30 * 24 * 60 * 60 * 1_000;

type Audience = 'all' | 'uids' | 'tags';

/** uids separated by commas or new lines; blanks dropped, duplicates kept once. */
export const uidsOf = (text: string) => [
  ...new Set(
    text
      .split(/[\n,]/)
      .map((uid) => uid.trim())
      .filter(Boolean),
  ),
];

/** `key=value` pairs, one a line (or comma separated): the tags object, or the first line that is not a pair. */
export function tagsOf(text: string): { tags: Record<string, string> } | { problem: string } {
  const tags: Record<string, string> = {};
  for (const line of text.split(/[\n,]/)) {
    const pair = line.trim();
    if (!pair) continue;
    const at = pair.indexOf('=');
    if (at < 1) return { problem: `“${pair}” is not a key=value pair.` };
    tags[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  if (Object.keys(tags).length === 0) return { problem: 'Give at least one key=value pair.' };
  return { tags };
}

/** A datetime-local value (the browser's time zone) as RFC 3339 UTC, or why it cannot be used. */
export function sendAtOf(local: string, now = Date.now()): { sendAt: string } | { problem: string } {
  const when = new Date(local);
  if (!local || Number.isNaN(when.getTime())) return { problem: 'Choose a date and time.' };
  if (when.getTime() <= now) return { problem: 'Choose a time in the future.' };
  if (when.getTime() > now + MAX_AHEAD_MS) return { problem: 'Choose a time at most 30 days ahead.' };
  return { sendAt: when.toISOString() };
}

/** A datetime-local value `minutes` from now, in the browser's time zone. */
const localIn = (minutes: number) => {
  const when = new Date(Date.now() + minutes * 60_000);
  return new Date(when.getTime() - when.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

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

const scheduleFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

function Scheduled({ appId, id, sendAt }: { appId: string; id: string; sendAt: string }) {
  const [canceled, setCanceled] = useState(false);
  return (
    <section className="panel" aria-labelledby="scheduled-title">
      <h2 id="scheduled-title">Scheduled</h2>
      <p role="status" data-testid="send-status" data-status={canceled ? 'canceled' : 'scheduled'}>
        {canceled
          ? 'Canceled: nothing will be sent.'
          : `Scheduled for ${scheduleFormat.format(new Date(sendAt))}. The audience is counted when it starts.`}
      </p>
      {!canceled && <CancelSend appId={appId} id={id} onCanceled={() => setCanceled(true)} />}
      <p>
        <Link to={`/apps/${appId}/notifications`}>See all notifications</Link>
      </p>
    </section>
  );
}

function Preview({ draft, rich }: { draft: Draft; rich: RichDraft }) {
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
          <RichPreview draft={rich} />
        </div>
      </div>
    </figure>
  );
}

export function SendPage() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [rich, setRich] = useState<RichDraft>(EMPTY_RICH);
  const [audience, setAudience] = useState<Audience>('all');
  const [uidsText, setUidsText] = useState('');
  const [tagsText, setTagsText] = useState('');
  const [later, setLater] = useState(false);
  const [when, setWhen] = useState(() => localIn(60));
  const [problem, setProblem] = useState<{ field: 'uids' | 'tags' | 'send-at'; message: string } | null>(null);
  useEffect(() => {
    document.title = `Send · ${app.name} · Web Push`;
  }, [app.name]);
  const bytes = payloadBytes(draft);
  const tooLarge = bytes > MAX_PAYLOAD_BYTES;

  const send = useMutation({
    mutationFn: (options: { uids?: string[]; tags?: Record<string, string>; sendAt?: string }) =>
      call(
        api.POST('/api/v1/apps/{appId}/notifications', {
          params: { path: { appId: app.id } },
          body: { ...payloadOf(draft), ...richPayloadOf(rich), ...options },
        }),
      ).then((answer) => ({ ...answer, sendAt: options.sendAt })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['usage', app.id] });
      await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
      await queryClient.invalidateQueries({ queryKey: ['notifications', app.id] });
    },
  });
  /** The audience and time as the API takes them, or the first thing to fix (shown next to its field). */
  const optionsOf = () => {
    const options: { uids?: string[]; tags?: Record<string, string>; sendAt?: string } = {};
    if (audience === 'uids') {
      const uids = uidsOf(uidsText);
      if (uids.length === 0) return { field: 'uids' as const, message: 'Give at least one user id.' };
      if (uids.length > MAX_UIDS)
        return {
          field: 'uids' as const,
          message: `At most ${MAX_UIDS.toLocaleString('en')} user ids (${uids.length}).`,
        };
      options.uids = uids;
    }
    if (audience === 'tags') {
      const parsed = tagsOf(tagsText);
      if ('problem' in parsed) return { field: 'tags' as const, message: parsed.problem };
      options.tags = parsed.tags;
    }
    if (later) {
      const parsed = sendAtOf(when);
      if ('problem' in parsed) return { field: 'send-at' as const, message: parsed.problem };
      options.sendAt = parsed.sendAt;
    }
    return options;
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (tooLarge) return;
    const options = optionsOf();
    if ('message' in options) {
      setProblem(options);
      return;
    }
    setProblem(null);
    send.mutate(options);
  };
  const problemOf = (field: 'uids' | 'tags' | 'send-at') =>
    problem?.field === field ? (
      <p className="error-message" role="alert" id={`${field}-error`}>
        {problem.message}
      </p>
    ) : null;
  const set = (field: keyof Draft) => (event: { target: { value: string } }) =>
    setDraft((current) => ({ ...current, [field]: event.target.value }));

  return (
    <>
      <div className="send-grid">
        <section className="panel">
          <h2>New notification</h2>
          <form onSubmit={onSubmit}>
            <fieldset className="scopes">
              <legend>Audience</legend>
              <label className="scope-option">
                <input
                  type="radio"
                  name="audience"
                  value="all"
                  checked={audience === 'all'}
                  onChange={() => setAudience('all')}
                />
                <span>
                  <strong>All subscribers</strong>
                  <span className="hint">
                    {app.stats.activeSubscribers} active{' '}
                    {app.stats.activeSubscribers === 1 ? 'subscriber' : 'subscribers'} now.
                  </span>
                </span>
              </label>
              <label className="scope-option">
                <input
                  type="radio"
                  name="audience"
                  value="uids"
                  checked={audience === 'uids'}
                  onChange={() => setAudience('uids')}
                />
                <span>
                  <strong>User ids</strong>
                  <span className="hint">Every browser of these uids (up to 1,000).</span>
                </span>
              </label>
              <label className="scope-option">
                <input
                  type="radio"
                  name="audience"
                  value="tags"
                  checked={audience === 'tags'}
                  onChange={() => setAudience('tags')}
                />
                <span>
                  <strong>Tags</strong>
                  <span className="hint">Every browser whose tags contain all these pairs.</span>
                </span>
              </label>
            </fieldset>
            {audience === 'uids' && (
              <div className="field">
                <label htmlFor="uids">User ids</label>
                <textarea
                  id="uids"
                  name="uids"
                  rows={3}
                  value={uidsText}
                  onChange={(event) => setUidsText(event.target.value)}
                  aria-invalid={problem?.field === 'uids' ? true : undefined}
                  aria-describedby="uids-hint uids-error"
                />
                <p className="hint" id="uids-hint">
                  Separated by commas or new lines.
                </p>
                {problemOf('uids')}
              </div>
            )}
            {audience === 'tags' && (
              <div className="field">
                <label htmlFor="tags">Tags</label>
                <textarea
                  id="tags"
                  name="tags"
                  rows={3}
                  placeholder={'lang=ja\nplan=pro'}
                  value={tagsText}
                  onChange={(event) => setTagsText(event.target.value)}
                  aria-invalid={problem?.field === 'tags' ? true : undefined}
                  aria-describedby="tags-hint tags-error"
                />
                <p className="hint" id="tags-hint">
                  <code>key=value</code>, one a line.
                </p>
                {problemOf('tags')}
              </div>
            )}
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
            <RichFields draft={rich} onChange={setRich} />
            <label className="scope-option">
              <input type="checkbox" checked={later} onChange={(event) => setLater(event.target.checked)} />
              <span>
                <strong>Send later</strong>
                <span className="hint">At most 30 days ahead; it can be canceled until it starts.</span>
              </span>
            </label>
            {later && (
              <div className="field">
                <label htmlFor="send-at">Send at (your time zone)</label>
                <input
                  id="send-at"
                  name="send-at"
                  type="datetime-local"
                  required
                  min={localIn(1)}
                  max={localIn(30 * 24 * 60)}
                  value={when}
                  onChange={(event) => setWhen(event.target.value)}
                  aria-invalid={problem?.field === 'send-at' ? true : undefined}
                  aria-describedby="send-at-error"
                />
                {problemOf('send-at')}
              </div>
            )}
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
              {send.isPending ? 'Sending…' : later ? 'Schedule notification' : 'Send notification'}
            </button>
          </form>
        </section>
        <Preview draft={draft} rich={rich} />
      </div>
      {send.data &&
        (send.data.notification.status === 'scheduled' && send.data.sendAt ? (
          <Scheduled
            key={send.data.notification.id}
            appId={app.id}
            id={send.data.notification.id}
            sendAt={send.data.sendAt}
          />
        ) : (
          <Progress key={send.data.notification.id} appId={app.id} accepted={send.data.notification} />
        ))}
    </>
  );
}
