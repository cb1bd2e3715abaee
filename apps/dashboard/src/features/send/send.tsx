import { MAX_PAYLOAD_BYTES, MAX_TARGET_UIDS } from '@webpush/plans';
import { type FormEvent, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError } from '../../api/client.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field, type Problem } from '../../components/field.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { compile, newGroup, type SegmentExpression } from '../segments/segment-tree.js';
import { type AudienceDraft, AudienceFields, type AudienceProblemField } from './send-audience-fields.js';
import {
  type Draft,
  EMPTY_DRAFT,
  localIn,
  localTimeOf,
  payloadBytes,
  payloadOf,
  sendAtOf,
  tagsOf,
  throttleOf,
  uidsOf,
} from './send-draft.js';
import { SendPreview } from './send-preview.js';
import { ScheduledSend, SendProgress } from './send-progress.js';
import { EMPTY_RICH, type RichDraft, RichFields, richPayloadOf } from './send-rich-fields.js';
import { DEFAULT_TIMING, type TimingDraft, TimingFields, type TimingProblemField } from './send-timing-fields.js';
import { LanguageTabs, TranslationFields } from './send-translation-fields.js';
import {
  type TranslationDraft,
  translatedDraft,
  translationFieldId,
  translationsPayloadOf,
} from './send-translations.js';
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

type ProblemField = AudienceProblemField | TimingProblemField | 'sample-percent' | 'sample-minutes';

/** The audience, time, pace, languages and A/B test as the API takes them. */
interface SendOptions {
  uids?: string[];
  tags?: Record<string, string>;
  segment?: SegmentExpression;
  segmentId?: string;
  sendAt?: string;
  localTime?: string;
  throttle?: { perMinute: number };
  translations?: Record<string, { title: string; body?: string; url?: string }>;
  variants?: ReturnType<typeof variantPayloadOf>[];
  sample?: number;
  winnerAfterMinutes?: number;
}

/** What the API answers for a URL that is not https://, found before asking it. */
const HTTPS_ONLY = new ApiError(400, 'INVALID_URL', '');

/** The send form: audience, the notification, when; the preview and the delivery beside and below it. */
export function SendPage() {
  const app = useCurrentApp();
  const [searchParams] = useSearchParams();
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [rich, setRich] = useState<RichDraft>(EMPTY_RICH);
  // A saved segment's Send link (the Segments page) opens the form with that segment chosen.
  const [audience, setAudience] = useState<AudienceDraft>(() => {
    const segmentId = searchParams.get('segment') ?? '';
    return { audience: segmentId ? 'segment' : 'all', uidsText: '', tagsText: '', segmentId, tree: newGroup() };
  });
  const [timing, setTiming] = useState<TimingDraft>(() => ({ ...DEFAULT_TIMING, when: localIn(60) }));
  const [translations, setTranslations] = useState<TranslationDraft[]>([]);
  /** The language tab shown: 0 for the default text, 1 for the first translation… */
  const [language, setLanguage] = useState(0);
  const [untitled, setUntitled] = useState<number | null>(null);
  const [variants, setVariants] = useState<VariantDraft[]>([]);
  /** The variant tab shown: 0 for A (the send's own content), 1 for B… */
  const [active, setActive] = useState(0);
  const [sample, setSample] = useState<SampleDraft>(DEFAULT_SAMPLE);
  /** A field to focus once its variant's tab is drawn (a URL to fix in another tab). */
  const [focusNext, setFocusNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<{ field: ProblemField; problem: Problem } | null>(null);
  const { t, number } = useI18n();
  usePageTitle(`${t('send.title')} · ${app.name}`);
  // What each variant's (or each language's) targets receive, the send's own first: every one is held
  // to the byte rule. Variants and translations do not go together (the API refuses both at once).
  const contents = [
    { draft, rich },
    ...variants.map((variant) => mergedContent(draft, rich, variant)),
    ...translations.map((translation) => ({ draft: translatedDraft(draft, translation), rich })),
  ];
  const tab = variants.length > 0 ? active : language;
  const tabNames = [
    ...VARIANT_NAMES.slice(0, variants.length + 1),
    ...translations.map((translation) => translation.language),
  ];
  const sizes = contents.map((content) => payloadBytes(content.draft));
  const bytes = sizes[tab] ?? 0;
  const tooLarge = sizes.some((size) => size > MAX_PAYLOAD_BYTES);
  const otherTooLarge = sizes.findIndex((size, index) => index !== tab && size > MAX_PAYLOAD_BYTES);
  const shownContent = contents[tab] ?? contents[0] ?? { draft, rich };
  useEffect(() => {
    if (!focusNext) return;
    document.getElementById(focusNext)?.focus();
    setFocusNext(null);
  }, [focusNext]);

  const send = useSend(app.id);
  /** The audience and time as the API takes them, or the first thing to fix (shown next to its field). */
  const optionsOf = () => {
    const options: SendOptions = {};
    if (audience.audience === 'uids') {
      const uids = uidsOf(audience.uidsText);
      if (uids.length === 0) return { field: 'uids' as const, problem: { key: 'send.uidsNone' } as Problem };
      if (uids.length > MAX_TARGET_UIDS)
        return {
          field: 'uids' as const,
          problem: { key: 'send.uidsTooMany', values: { max: MAX_TARGET_UIDS, count: uids.length } } as Problem,
        };
      options.uids = uids;
    }
    if (audience.audience === 'tags') {
      const parsed = tagsOf(audience.tagsText);
      if ('problem' in parsed) return { field: 'tags' as const, problem: parsed.problem };
      options.tags = parsed.tags;
    }
    if (audience.audience === 'segment') {
      if (!audience.segmentId)
        return { field: 'segment-id' as const, problem: { key: 'send.segmentMissing' } as Problem };
      options.segmentId = audience.segmentId;
    }
    if (audience.audience === 'expression') {
      // The builder shows what is wrong next to its row; this says why nothing was sent.
      const compiled = compile(audience.tree);
      if ('problem' in compiled)
        return { field: 'segment' as const, problem: { key: 'send.segmentIncomplete' } as Problem };
      options.segment = compiled.expression;
    }
    if (timing.timing === 'later') {
      const parsed = sendAtOf(timing.when);
      if ('problem' in parsed) return { field: 'send-at' as const, problem: parsed.problem };
      options.sendAt = parsed.sendAt;
    }
    if (timing.timing === 'local') {
      const parsed = localTimeOf(timing.localTime);
      if ('problem' in parsed) return { field: 'local-time' as const, problem: parsed.problem };
      options.localTime = parsed.localTime;
    }
    if (timing.throttled) {
      const parsed = throttleOf(timing.perMinute);
      if ('problem' in parsed) return { field: 'throttle' as const, problem: parsed.problem };
      options.throttle = parsed.throttle;
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
    const translated = translationsPayloadOf(translations);
    if ('untitled' in translated) {
      setUntitled(translated.untitled);
      showField(translationFieldId(translated.untitled, 'title'));
      return;
    }
    const options = optionsOf();
    if ('problem' in options) {
      setProblem({ field: options.field, problem: options.problem });
      return;
    }
    setProblem(null);
    send.mutate({ ...payloadOf(draft), ...richPayloadOf(rich), ...translated, ...options });
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
    ...translations.map((translation, i): [string, string] => [translationFieldId(i, 'url'), translation.url]),
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
  /** Shows the tab holding a field (`variant-c-url` is C's, `translation-2-url` the second language's), then focuses it. */
  const showField = (field: string) => {
    const variantTab = VARIANT_NAMES.findIndex((name) => field.startsWith(`variant-${name.toLowerCase()}-`));
    setActive(Math.max(0, variantTab));
    const languageTab = Number(/^translation-(\d+)-/.exec(field)?.[1] ?? 0);
    setLanguage(languageTab);
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
  const addLanguage = (tag: string) => {
    changed();
    setTranslations((current) => [...current, { language: tag, title: '', body: '', url: '' }]);
    setLanguage(translations.length + 1);
    setFocusNext(translationFieldId(translations.length, 'title'));
  };
  const removeLanguage = (index: number) => {
    changed();
    setUntitled(null);
    setTranslations((current) => current.filter((_, i) => i !== index));
    setLanguage(0);
    setFocusNext(translations.length > 1 ? 'language-tab-0' : 'new-language');
  };
  const removeVariant = (index: number) => {
    changed();
    setVariants((current) => current.filter((_, i) => i !== index));
    setActive(0);
    setFocusNext('variant-tab-0');
  };

  const tabbed = variants.length > 0 ? 'variants' : translations.length > 0 ? 'languages' : null;
  const invalid = (field: ProblemField) => problem?.field === field;
  return (
    <>
      <div className="send-grid">
        <section className="panel">
          <h2>{t('send.newNotification')}</h2>
          <form onSubmit={onSubmit}>
            <AudienceFields
              app={app}
              draft={audience}
              onChange={(next) => {
                changed();
                setAudience(next);
              }}
              problemOf={problemOf}
              invalid={invalid}
            />
            <div className="content-tabs">
              {translations.length === 0 && (
                <VariantTabs count={variants.length} active={active} onSelect={setActive} onAdd={addVariant} />
              )}
              {variants.length === 0 && (
                <LanguageTabs
                  translations={translations}
                  active={language}
                  onSelect={setLanguage}
                  onAdd={addLanguage}
                />
              )}
            </div>
            {tabbed === null && <p className="hint content-tabs-note">{t('send.languagesOrVariants')}</p>}
            <div
              id={tabbed === 'languages' ? 'language-panel' : 'variant-panel'}
              className={tabbed ? 'variant-panel' : undefined}
              {...(tabbed === 'variants' ? { role: 'tabpanel', 'aria-labelledby': `variant-tab-${active}` } : {})}
              {...(tabbed === 'languages' ? { role: 'tabpanel', 'aria-labelledby': `language-tab-${language}` } : {})}
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
              ) : language > 0 ? (
                <TranslationFields
                  key={language}
                  index={language - 1}
                  translation={translations[language - 1] ?? { language: '', title: '', body: '', url: '' }}
                  base={draft}
                  onChange={(next) => {
                    changed();
                    if (untitled === language - 1 && next.title.trim()) setUntitled(null);
                    setTranslations((current) => current.map((entry, i) => (i === language - 1 ? next : entry)));
                  }}
                  onRemove={() => removeLanguage(language - 1)}
                  errorOf={errorOf}
                  titleProblem={untitled === language - 1}
                />
              ) : (
                <>
                  {variants.length > 0 && <p className="hint variant-note">{t('send.variantANote')}</p>}
                  {translations.length > 0 && <p className="hint variant-note">{t('send.languageDefaultNote')}</p>}
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
            <TimingFields
              draft={timing}
              onChange={(next) => {
                changed();
                setTiming(next);
              }}
              appTimeZone={app.timeZone}
              problemOf={problemOf}
              invalid={invalid}
            />
            <p className={tooLarge ? 'byte-counter over' : 'byte-counter'} id="byte-counter" aria-live="polite">
              {t('send.bytes', { bytes: number(bytes), max: number(MAX_PAYLOAD_BYTES) })}
              {(sizes[tab] ?? 0) > MAX_PAYLOAD_BYTES && t('send.tooLarge')}
              {otherTooLarge >= 0 &&
                (variants.length > 0
                  ? t('send.variantTooLarge', { name: tabNames[otherTooLarge] ?? '' })
                  : otherTooLarge === 0
                    ? t('send.defaultTooLarge')
                    : t('send.languageTooLarge', { language: tabNames[otherTooLarge] ?? '' }))}
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
              {send.isPending ? t('send.sending') : timing.timing === 'now' ? t('send.send') : t('send.schedule')}
            </button>
          </form>
        </section>
        <SendPreview
          draft={shownContent.draft}
          rich={shownContent.rich}
          variant={variants.length > 0 ? VARIANT_NAMES[active] : undefined}
          language={language > 0 ? translations[language - 1]?.language : undefined}
        />
      </div>
      {send.data &&
        (send.data.notification.status === 'scheduled' && (send.data.sendAt || send.data.localTime) ? (
          <ScheduledSend
            key={send.data.notification.id}
            appId={app.id}
            id={send.data.notification.id}
            sendAt={send.data.sendAt}
            localTime={send.data.localTime}
          />
        ) : (
          <SendProgress key={send.data.notification.id} appId={app.id} accepted={send.data.notification} />
        ))}
    </>
  );
}
