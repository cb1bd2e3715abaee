import { MAX_PAYLOAD_BYTES, MAX_SCHEDULE_AHEAD_DAYS, MAX_TARGET_UIDS } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ApiError } from '../../api/client.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field, type Problem } from '../../components/field.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import {
  type Audience,
  type Draft,
  EMPTY_DRAFT,
  localIn,
  payloadBytes,
  payloadOf,
  sendAtOf,
  tagsOf,
  uidsOf,
} from './send-draft.js';
import { SendPreview } from './send-preview.js';
import { ScheduledSend, SendProgress } from './send-progress.js';
import { EMPTY_RICH, type RichDraft, RichFields, richPayloadOf } from './send-rich-fields.js';
import { useSend } from './use-send.js';
import './send.css';

/** The URL fields of the notification, in the form's order. */
const URL_FIELDS: { field: 'url' | 'icon' | 'badge'; label: MessageKey; placeholder: string; hint?: MessageKey }[] = [
  { field: 'url', label: 'send.fieldUrl', placeholder: 'https://example.com/news', hint: 'send.fieldUrlHint' },
  { field: 'icon', label: 'send.fieldIcon', placeholder: 'https://example.com/icon.png' },
  {
    field: 'badge',
    label: 'send.fieldBadge',
    placeholder: 'https://example.com/badge.png',
    hint: 'send.fieldBadgeHint',
  },
];

/** What the API answers for a URL that is not https://, found before asking it. */
const HTTPS_ONLY = new ApiError(400, 'INVALID_URL', '');

/** The send form: audience, the notification, when; the preview and the delivery beside and below it. */
export function SendPage() {
  const app = useCurrentApp();
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [rich, setRich] = useState<RichDraft>(EMPTY_RICH);
  const [audience, setAudience] = useState<Audience>('all');
  const [uidsText, setUidsText] = useState('');
  const [tagsText, setTagsText] = useState('');
  const [later, setLater] = useState(false);
  const [when, setWhen] = useState(() => localIn(60));
  const [problem, setProblem] = useState<{ field: 'uids' | 'tags' | 'send-at'; problem: Problem } | null>(null);
  const { t, plural, rich: richText, number } = useI18n();
  usePageTitle(`${t('send.title')} · ${app.name}`);
  const audiences: { value: Audience; label: MessageKey; hint: string }[] = [
    { value: 'all', label: 'send.all', hint: plural('send.allHint.other', app.stats.activeSubscribers) },
    { value: 'uids', label: 'send.uids', hint: t('send.uidsHint', { max: MAX_TARGET_UIDS }) },
    { value: 'tags', label: 'send.tags', hint: t('send.tagsHint') },
  ];
  const bytes = payloadBytes(draft);
  const tooLarge = bytes > MAX_PAYLOAD_BYTES;

  const send = useSend(app.id);
  /** The audience and time as the API takes them, or the first thing to fix (shown next to its field). */
  const optionsOf = () => {
    const options: { uids?: string[]; tags?: Record<string, string>; sendAt?: string } = {};
    if (audience === 'uids') {
      const uids = uidsOf(uidsText);
      if (uids.length === 0) return { field: 'uids' as const, problem: { key: 'send.uidsNone' } as Problem };
      if (uids.length > MAX_TARGET_UIDS)
        return {
          field: 'uids' as const,
          problem: { key: 'send.uidsTooMany', values: { max: MAX_TARGET_UIDS, count: uids.length } } as Problem,
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
    setRefusedUrls(notHttps);
    if (notHttps.length > 0) {
      document.getElementById(notHttps[0] ?? '')?.focus();
      return;
    }
    const options = optionsOf();
    if ('problem' in options && options.problem && 'field' in options) {
      setProblem({ field: options.field, problem: options.problem });
      return;
    }
    setProblem(null);
    send.mutate({
      ...payloadOf(draft),
      ...richPayloadOf(rich),
      ...(options as { uids?: string[]; tags?: Record<string, string>; sendAt?: string }),
    });
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
  // Every URL the API checks, by the id of its field: it refuses any that is not https:// (INVALID_URL,
  // which names no field), so the form finds them first and says so under each.
  const urls: [string, string][] = [
    ['url', draft.url],
    ['icon', draft.icon],
    ['badge', draft.badge],
    ['image', rich.image],
    ...rich.buttons.map((button, i): [string, string] => [`button-${i + 1}-url`, button.url]),
  ];
  const notHttps = urls.filter(([, value]) => value && !value.startsWith('https://')).map(([field]) => field);
  const [refusedUrls, setRefusedUrls] = useState<string[]>([]);
  // The API's INVALID_URL, should it answer one the form did not foresee: under every URL field it can mean.
  const apiUrlFields =
    send.error instanceof ApiError && send.error.code === 'INVALID_URL'
      ? notHttps.length > 0
        ? notHttps
        : urls.filter(([, value]) => value && !URL.canParse(value)).map(([field]) => field)
      : [];
  const errorOf = (field: string): unknown =>
    refusedUrls.includes(field) && notHttps.includes(field)
      ? HTTPS_ONLY
      : apiUrlFields.includes(field)
        ? send.error
        : send.error instanceof ApiError && send.error.code === 'MISSING_FIELDS' && field === 'title'
          ? send.error
          : null;
  const placedError =
    apiUrlFields.length > 0 ||
    (send.error instanceof ApiError && ['MISSING_FIELDS', 'PAYLOAD_TOO_LARGE'].includes(send.error.code));

  return (
    <>
      <div className="send-grid">
        <section className="panel">
          <h2>{t('send.newNotification')}</h2>
          <form onSubmit={onSubmit}>
            <fieldset className="scopes">
              <legend>{t('send.audience')}</legend>
              {audiences.map((option) => (
                <label key={option.value} className="scope-option">
                  <input
                    type="radio"
                    name="audience"
                    value={option.value}
                    checked={audience === option.value}
                    onChange={() => setAudience(option.value)}
                  />
                  <span>
                    <strong>{t(option.label)}</strong>
                    <span className="hint">{option.hint}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            {audience === 'all' && app.stats.activeSubscribers === 0 && (
              <p className="hint warning send-warning" data-testid="no-subscribers">
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
            <Field
              id="title"
              label={t('send.fieldTitle')}
              required
              value={draft.title}
              onChange={set('title')}
              error={errorOf('title')}
            />
            <div className="field">
              <label htmlFor="body">{t('send.fieldBody')}</label>
              <textarea id="body" name="body" required rows={3} value={draft.body} onChange={set('body')} />
            </div>
            {URL_FIELDS.map(({ field, label, placeholder, hint }) => (
              <Field
                key={field}
                id={field}
                label={t(label)}
                type="url"
                placeholder={placeholder}
                value={draft[field]}
                onChange={set(field)}
                hint={hint ? t(hint) : undefined}
                error={errorOf(field)}
              />
            ))}
            <RichFields
              draft={rich}
              errorOf={errorOf}
              onChange={(next) => {
                if (send.isError) send.reset();
                setRich(next);
              }}
            />
            <label className="scope-option">
              <input type="checkbox" checked={later} onChange={(event) => setLater(event.target.checked)} />
              <span>
                <strong>{t('send.later')}</strong>
                <span className="hint">{t('send.laterHint', { days: MAX_SCHEDULE_AHEAD_DAYS })}</span>
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
                  max={localIn(MAX_SCHEDULE_AHEAD_DAYS * 24 * 60)}
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
            {send.error instanceof ApiError && send.error.code === 'PAYLOAD_TOO_LARGE' && (
              <ErrorMessage error={send.error} id="byte-counter-error" />
            )}
            {!placedError && <ErrorMessage error={send.error} />}
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
        <SendPreview draft={draft} rich={rich} />
      </div>
      {send.data &&
        (send.data.notification.status === 'scheduled' && send.data.sendAt ? (
          <ScheduledSend
            key={send.data.notification.id}
            appId={app.id}
            id={send.data.notification.id}
            sendAt={send.data.sendAt}
          />
        ) : (
          <SendProgress key={send.data.notification.id} appId={app.id} accepted={send.data.notification} />
        ))}
    </>
  );
}
