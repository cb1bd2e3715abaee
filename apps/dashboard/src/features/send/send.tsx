import { MAX_PAYLOAD_BYTES, MAX_SCHEDULE_AHEAD_DAYS, MAX_TARGET_UIDS } from '@webpush/plans';
import { type FormEvent, useEffect, useState } from 'react';
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
import { SampleFields, VariantFields, VariantTabs } from './send-variant-fields.js';
import {
  DEFAULT_SAMPLE,
  EMPTY_VARIANT,
  mergedContent,
  type SampleDraft,
  samplePayloadOf,
  VARIANT_NAMES,
  type VariantDraft,
  variantPayloadOf,
  variantUrls,
} from './send-variants.js';
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

type ProblemField = 'uids' | 'tags' | 'send-at' | 'sample-percent' | 'sample-minutes';

/** The audience, time and A/B test as the API takes them. */
interface SendOptions {
  uids?: string[];
  tags?: Record<string, string>;
  sendAt?: string;
  variants?: ReturnType<typeof variantPayloadOf>[];
  sample?: number;
  winnerAfterMinutes?: number;
}

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
  const [variants, setVariants] = useState<VariantDraft[]>([]);
  /** The variant tab shown: 0 for A (the send's own content), 1 for B… */
  const [active, setActive] = useState(0);
  const [sample, setSample] = useState<SampleDraft>(DEFAULT_SAMPLE);
  /** A field to focus once its variant's tab is drawn (a URL to fix in another tab). */
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<{ field: ProblemField; problem: Problem } | null>(null);
  const { t, plural, rich: richText, number } = useI18n();
  usePageTitle(`${t('send.title')} · ${app.name}`);
  const audiences: { value: Audience; label: MessageKey; hint: string }[] = [
    { value: 'all', label: 'send.all', hint: plural('send.allHint.other', app.stats.activeSubscribers) },
    { value: 'uids', label: 'send.uids', hint: t('send.uidsHint', { max: MAX_TARGET_UIDS }) },
    { value: 'tags', label: 'send.tags', hint: t('send.tagsHint') },
  ];
  // What each variant's targets receive, A first: every one is held to the byte rule.
  const contents = [{ draft, rich }, ...variants.map((variant) => mergedContent(draft, rich, variant))];
  const sizes = contents.map((content) => payloadBytes(content.draft));
  const bytes = sizes[active] ?? 0;
  const tooLarge = sizes.some((size) => size > MAX_PAYLOAD_BYTES);
  const otherTooLarge = sizes.findIndex((size, index) => index !== active && size > MAX_PAYLOAD_BYTES);
  const shownContent = contents[active] ?? contents[0] ?? { draft, rich };
  useEffect(() => {
    if (!focusNext) return;
    document.getElementById(focusNext)?.focus();
    setFocusNext(null);
  }, [focusNext]);

  const send = useSend(app.id);
  /** The audience and time as the API takes them, or the first thing to fix (shown next to its field). */
  const optionsOf = () => {
    const options: SendOptions = {};
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
    if (variants.length > 0) {
      const parsed = samplePayloadOf(sample);
      if ('problem' in parsed) return parsed;
      Object.assign(options, parsed, { variants: variants.map(variantPayloadOf) });
    }
    return options;
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (tooLarge) return;
    setRefusedUrls(notHttps);
    if (notHttps.length > 0) {
      showField(notHttps[0] ?? '');
      return;
    }
    const options = optionsOf();
    if ('problem' in options) {
      setProblem({ field: options.field, problem: options.problem });
      return;
    }
    setProblem(null);
    send.mutate({ ...payloadOf(draft), ...richPayloadOf(rich), ...options });
  };
  const problemOf = (field: ProblemField) =>
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
    ...variants.flatMap(variantUrls),
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
  // INVALID_INPUT names no field; with an A/B test on, it is about the test's settings (docs/engagement.md).
  const sampleError =
    variants.length > 0 && send.error instanceof ApiError && send.error.code === 'INVALID_INPUT' ? send.error : null;
  const placedError =
    apiUrlFields.length > 0 ||
    sampleError !== null ||
    (send.error instanceof ApiError && ['MISSING_FIELDS', 'PAYLOAD_TOO_LARGE'].includes(send.error.code));
  /** Shows the tab holding a field (`variant-c-url` is C's), then focuses it. */
  const showField = (field: string) => {
    const tab = VARIANT_NAMES.findIndex((name) => field.startsWith(`variant-${name.toLowerCase()}-`));
    setActive(Math.max(0, tab));
    setFocusNext(field);
  };
  const changed = () => {
    if (send.isError) send.reset();
  };
  const addVariant = () => {
    changed();
    setVariants((current) => [...current, EMPTY_VARIANT]);
    setActive(variants.length + 1);
  };
  const removeVariant = (index: number) => {
    changed();
    setVariants((current) => current.filter((_, i) => i !== index));
    setActive(0);
    setFocusNext('variant-tab-0');
  };

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
            <VariantTabs count={variants.length} active={active} onSelect={setActive} onAdd={addVariant} />
            <div
              id="variant-panel"
              className={variants.length > 0 ? 'variant-panel' : undefined}
              {...(variants.length > 0 ? { role: 'tabpanel', 'aria-labelledby': `variant-tab-${active}` } : {})}
            >
              {active > 0 ? (
                <VariantFields
                  key={active}
                  index={active - 1}
                  variant={variants[active - 1] ?? EMPTY_VARIANT}
                  base={{ draft, rich }}
                  onChange={(next) => {
                    changed();
                    setVariants((current) => current.map((variant, i) => (i === active - 1 ? next : variant)));
                  }}
                  onRemove={() => removeVariant(active - 1)}
                  errorOf={errorOf}
                />
              ) : (
                <>
                  {variants.length > 0 && <p className="hint variant-note">{t('send.variantANote')}</p>}
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
                </>
              )}
            </div>
            {variants.length > 0 && (
              <SampleFields
                sample={sample}
                onChange={(next) => {
                  changed();
                  setSample(next);
                }}
                problemOf={problemOf}
                error={sampleError && <ErrorMessage error={sampleError} id="sample-error" />}
              />
            )}
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
              {(sizes[active] ?? 0) > MAX_PAYLOAD_BYTES && t('send.tooLarge')}
              {otherTooLarge >= 0 && t('send.variantTooLarge', { name: VARIANT_NAMES[otherTooLarge] ?? '' })}
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
        <SendPreview
          draft={shownContent.draft}
          rich={shownContent.rich}
          variant={variants.length > 0 ? VARIANT_NAMES[active] : undefined}
        />
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
