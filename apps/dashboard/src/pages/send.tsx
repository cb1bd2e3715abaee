import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError, api, call } from '../api/client.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { type MessageKey, useI18n, usePageTitle } from '../i18n/index.js';
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

/** Why a field cannot be sent: a message key and its values. */
export interface Problem {
  key: MessageKey;
  values?: Record<string, string | number>;
}

/** `key=value` pairs, one a line (or comma separated): the tags object, or the first line that is not a pair. */
export function tagsOf(text: string): { tags: Record<string, string> } | { problem: Problem } {
  const tags: Record<string, string> = {};
  for (const line of text.split(/[\n,]/)) {
    const pair = line.trim();
    if (!pair) continue;
    const at = pair.indexOf('=');
    if (at < 1) return { problem: { key: 'send.tagsNotPair', values: { pair } } };
    tags[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  if (Object.keys(tags).length === 0) return { problem: { key: 'send.tagsNone' } };
  return { tags };
}

/** A datetime-local value (the browser's time zone) as RFC 3339 UTC, or why it cannot be used. */
export function sendAtOf(local: string, now = Date.now()): { sendAt: string } | { problem: Problem } {
  const when = new Date(local);
  if (!local || Number.isNaN(when.getTime())) return { problem: { key: 'send.whenMissing' } };
  if (when.getTime() <= now) return { problem: { key: 'send.whenPast' } };
  if (when.getTime() > now + MAX_AHEAD_MS) return { problem: { key: 'send.whenFar' } };
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
  const { t, plural, rich } = useI18n();
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
      <h2 id="progress-title">{t('send.delivery')}</h2>
      <ol className="steps" aria-label={t('send.progress')}>
        {STEPS.map((step, index) => (
          <li
            key={step}
            className={index <= reached ? 'step step-done' : 'step'}
            aria-current={index === reached ? 'step' : undefined}
          >
            {t(step === 'completed' && status === 'failed' ? 'send.step.failed' : `send.step.${step}`)}
          </li>
        ))}
      </ol>
      <p role="status" data-testid="send-status" data-status={status}>
        {plural('send.counts.other', notification.targets ?? accepted.targets, {
          state: status === 'completed' || status === 'failed' ? t('send.finished') : t('send.inProgress'),
          sent: notification.sent ?? 0,
          failed: notification.failed ?? 0,
          expired: notification.expired ?? 0,
        })}
      </p>
      {(notification.targets ?? accepted.targets) === 0 && (
        <div className="warning" data-testid="no-targets">
          <p>{t('send.noTargets')}</p>
          <p>
            {rich('send.noTargetsNext', {
              tryIt: <Link to={`/apps/${appId}/try`}>{t('send.tryItLink')}</Link>,
              snippet: <Link to={`/apps/${appId}`}>{t('send.snippetLink')}</Link>,
            })}
          </p>
        </div>
      )}
      {page.isError && <ErrorMessage error={page.error} />}
      <p>
        <Link to={`/apps/${appId}/notifications`}>{t('send.seeAll')}</Link>
      </p>
    </section>
  );
}

function Scheduled({ appId, id, sendAt }: { appId: string; id: string; sendAt: string }) {
  const [canceled, setCanceled] = useState(false);
  const { t, dateTime } = useI18n();
  return (
    <section className="panel" aria-labelledby="scheduled-title">
      <h2 id="scheduled-title">{t('send.scheduled')}</h2>
      <p role="status" data-testid="send-status" data-status={canceled ? 'canceled' : 'scheduled'}>
        {canceled ? t('send.canceled') : t('send.scheduledFor', { when: dateTime(sendAt) })}
      </p>
      {!canceled && <CancelSend appId={appId} id={id} onCanceled={() => setCanceled(true)} />}
      <p>
        <Link to={`/apps/${appId}/notifications`}>{t('send.seeAll')}</Link>
      </p>
    </section>
  );
}

function Preview({ draft, rich }: { draft: Draft; rich: RichDraft }) {
  const { t } = useI18n();
  let host = '';
  try {
    host = draft.url ? new URL(draft.url).host : '';
  } catch {
    host = '';
  }
  const icon = draft.icon.startsWith('https://') ? draft.icon : null;
  return (
    <figure className="preview" aria-label={t('send.preview')}>
      <figcaption className="muted">{t('send.previewNote')}</figcaption>
      <div className="preview-card">
        {icon ? (
          <img src={icon} alt="" className="preview-icon" />
        ) : (
          <span className="preview-icon" aria-hidden="true" />
        )}
        <div className="preview-text">
          <strong className="preview-title">{draft.title || t('send.previewTitle')}</strong>
          <span className="preview-body">{draft.body || t('send.previewBody')}</span>
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
  const [problem, setProblem] = useState<{ field: 'uids' | 'tags' | 'send-at'; problem: Problem } | null>(null);
  const { t, plural, rich: richText, number } = useI18n();
  usePageTitle(`${t('send.title')} · ${app.name}`);
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
      if (uids.length === 0) return { field: 'uids' as const, problem: { key: 'send.uidsNone' } as Problem };
      if (uids.length > MAX_UIDS)
        return {
          field: 'uids' as const,
          problem: { key: 'send.uidsTooMany', values: { max: MAX_UIDS, count: uids.length } } as Problem,
        };
      options.uids = uids;
    }
    if (audience === 'tags') {
      const parsed = tagsOf(tagsText);
      if ('problem' in parsed) return { field: 'tags' as const, problem: parsed.problem };
      options.tags = parsed.tags;
    }
    if (later) {
      const parsed = sendAtOf(when);
      if ('problem' in parsed) return { field: 'send-at' as const, problem: parsed.problem };
      options.sendAt = parsed.sendAt;
    }
    return options;
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (tooLarge) return;
    const options = optionsOf();
    if ('problem' in options && options.problem && 'field' in options) {
      setProblem({ field: options.field, problem: options.problem });
      return;
    }
    setProblem(null);
    send.mutate(options as { uids?: string[]; tags?: Record<string, string>; sendAt?: string });
  };
  const problemOf = (field: 'uids' | 'tags' | 'send-at') =>
    problem?.field === field ? (
      <p className="error-message" role="alert" id={`${field}-error`}>
        {t(problem.problem.key, problem.problem.values)}
      </p>
    ) : null;
  // An answer about the old text (INVALID_URL, PAYLOAD_TOO_LARGE…) goes as soon as the text changes.
  const set = (field: keyof Draft) => (event: { target: { value: string } }) => {
    if (send.isError) send.reset();
    setDraft((current) => ({ ...current, [field]: event.target.value }));
  };
  // INVALID_URL names no field: it belongs under the first URL field that is not https://.
  const urlField =
    send.error instanceof ApiError && send.error.code === 'INVALID_URL'
      ? (['url', 'icon', 'badge'] as const).find((field) => draft[field] && !draft[field].startsWith('https://'))
      : undefined;
  const urlError = (field: 'url' | 'icon' | 'badge') => (urlField === field ? send.error : null);

  return (
    <>
      <div className="send-grid">
        <section className="panel">
          <h2>{t('send.newNotification')}</h2>
          <form onSubmit={onSubmit}>
            <fieldset className="scopes">
              <legend>{t('send.audience')}</legend>
              <label className="scope-option">
                <input
                  type="radio"
                  name="audience"
                  value="all"
                  checked={audience === 'all'}
                  onChange={() => setAudience('all')}
                />
                <span>
                  <strong>{t('send.all')}</strong>
                  <span className="hint">{plural('send.allHint.other', app.stats.activeSubscribers)}</span>
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
                  <strong>{t('send.uids')}</strong>
                  <span className="hint">{t('send.uidsHint')}</span>
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
                  <strong>{t('send.tags')}</strong>
                  <span className="hint">{t('send.tagsHint')}</span>
                </span>
              </label>
            </fieldset>
            {audience === 'all' && app.stats.activeSubscribers === 0 && (
              <p className="hint warning" data-testid="no-subscribers">
                {richText('send.noneYet', { tryIt: <Link to={`/apps/${app.id}/try`}>{t('send.tryItLink')}</Link> })}
              </p>
            )}
            {audience === 'uids' && (
              <div className="field">
                <label htmlFor="uids">{t('send.uids')}</label>
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
                  {t('send.uidsSeparator')}
                </p>
                {problemOf('uids')}
              </div>
            )}
            {audience === 'tags' && (
              <div className="field">
                <label htmlFor="tags">{t('send.tags')}</label>
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
                  {richText('send.tagsFormat', { pair: <code>key=value</code> })}
                </p>
                {problemOf('tags')}
              </div>
            )}
            <Field id="title" label={t('send.fieldTitle')} required value={draft.title} onChange={set('title')} />
            <div className="field">
              <label htmlFor="body">{t('send.fieldBody')}</label>
              <textarea id="body" name="body" required rows={3} value={draft.body} onChange={set('body')} />
            </div>
            <Field
              id="url"
              label={t('send.fieldUrl')}
              type="url"
              placeholder="https://example.com/news"
              value={draft.url}
              onChange={set('url')}
              hint={t('send.fieldUrlHint')}
              error={urlError('url')}
            />
            <Field
              id="icon"
              label={t('send.fieldIcon')}
              type="url"
              placeholder="https://example.com/icon.png"
              value={draft.icon}
              onChange={set('icon')}
              error={urlError('icon')}
            />
            <Field
              id="badge"
              label={t('send.fieldBadge')}
              type="url"
              placeholder="https://example.com/badge.png"
              value={draft.badge}
              onChange={set('badge')}
              hint={t('send.fieldBadgeHint')}
              error={urlError('badge')}
            />
            <RichFields
              draft={rich}
              onChange={(next) => {
                if (send.isError) send.reset();
                setRich(next);
              }}
            />
            <label className="scope-option">
              <input type="checkbox" checked={later} onChange={(event) => setLater(event.target.checked)} />
              <span>
                <strong>{t('send.later')}</strong>
                <span className="hint">{t('send.laterHint')}</span>
              </span>
            </label>
            {later && (
              <div className="field">
                <label htmlFor="send-at">{t('send.sendAt')}</label>
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
              {t('send.bytes', { bytes: number(bytes), max: number(MAX_PAYLOAD_BYTES) })}
              {tooLarge && t('send.tooLarge')}
            </p>
            {!urlField && <ErrorMessage error={send.error} />}
            <button
              type="submit"
              className="button button-primary"
              disabled={send.isPending || tooLarge}
              aria-describedby="byte-counter"
            >
              {send.isPending ? t('send.sending') : later ? t('send.schedule') : t('send.send')}
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
