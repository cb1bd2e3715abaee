import { MAX_ACTION_TITLE_LENGTH } from '@webpush/plans';
import type { KeyboardEvent, ReactNode } from 'react';
import { Field } from '../../components/field.js';
import { useI18n } from '../../i18n/index.js';
import { useRichText } from '../../i18n/rich-strings.js';
import type { Draft } from './send-draft.js';
import type { RichDraft } from './send-rich-fields.js';
import {
  MAX_VARIANTS,
  MAX_WINNER_AFTER_MINUTES,
  SAMPLE_PERCENT,
  type SampleDraft,
  VARIANT_NAMES,
  type VariantDraft,
  variantFieldId,
} from './send-variants.js';

/**
 * The variant tabs above the notification's fields: A (the send's own content), then each
 * alternative, and a button to add one. With no alternative there is only that button.
 */
export function VariantTabs({
  count,
  active,
  onSelect,
  onAdd,
}: {
  /** Alternatives (B, C, D) so far. */
  count: number;
  /** 0 for A, 1 for B… */
  active: number;
  onSelect: (index: number) => void;
  onAdd: () => void;
}) {
  const { t } = useI18n();
  const names = VARIANT_NAMES.slice(0, count + 1);
  // Arrow keys move between tabs, as the ARIA tabs pattern has it.
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (active + step + names.length) % names.length;
    onSelect(next);
    document.getElementById(`variant-tab-${next}`)?.focus();
  };
  return (
    <div className="variant-bar">
      {count > 0 && (
        <div className="variant-tabs" role="tablist" aria-label={t('send.variants')}>
          {names.map((name, index) => (
            <button
              key={name}
              id={`variant-tab-${index}`}
              type="button"
              role="tab"
              className="variant-tab"
              aria-selected={index === active}
              aria-controls="variant-panel"
              tabIndex={index === active ? 0 : -1}
              onClick={() => onSelect(index)}
              onKeyDown={onKeyDown}
            >
              {t('send.variantTab', { name })}
            </button>
          ))}
        </div>
      )}
      {count < MAX_VARIANTS && (
        <button type="button" className="button button-small" onClick={onAdd}>
          {count === 0 ? t('send.addFirstVariant') : t('send.addVariant', { name: VARIANT_NAMES[count + 1] ?? '' })}
        </button>
      )}
    </div>
  );
}

/** One alternative's fields: each left empty is variant A's (shown as its placeholder). */
export function VariantFields({
  index,
  variant,
  base,
  onChange,
  onRemove,
  errorOf,
}: {
  /** 0 for B, 1 for C, 2 for D. */
  index: number;
  variant: VariantDraft;
  /** Variant A's content, shown where this one is empty. */
  base: { draft: Draft; rich: RichDraft };
  onChange: (variant: VariantDraft) => void;
  onRemove: () => void;
  errorOf: (field: string) => unknown;
}) {
  const { t } = useI18n();
  const richText = useRichText();
  const name = VARIANT_NAMES[index + 1] ?? '';
  const id = (field: string) => variantFieldId(index, field);
  const set = (field: 'title' | 'url' | 'icon' | 'image') => ({
    id: id(field),
    value: variant[field],
    onChange: (event: { target: { value: string } }) => onChange({ ...variant, [field]: event.target.value }),
    error: field === 'title' ? undefined : errorOf(id(field)),
  });
  const setButton = (i: number, field: 'title' | 'url', value: string) =>
    onChange({
      ...variant,
      buttons: variant.buttons.map((button, j) => (j === i ? { ...button, [field]: value } : button)),
    });
  return (
    <>
      <p className="hint variant-note">{t('send.variantNote', { name })}</p>
      <Field label={t('send.fieldTitle')} placeholder={base.draft.title} {...set('title')} />
      <div className="field">
        <label htmlFor={id('body')}>{t('send.fieldBody')}</label>
        <textarea
          id={id('body')}
          name={id('body')}
          rows={3}
          placeholder={base.draft.body}
          value={variant.body}
          onChange={(event) => onChange({ ...variant, body: event.target.value })}
        />
      </div>
      <Field label={t('send.fieldUrl')} type="url" placeholder={base.draft.url || 'https://'} {...set('url')} />
      <Field label={t('send.fieldIcon')} type="url" placeholder={base.draft.icon || 'https://'} {...set('icon')} />
      <Field label={richText.image} type="url" placeholder={base.rich.image || 'https://'} {...set('image')} />
      {variant.buttons.map((button, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: fixed slots, one per button the API allows
        <div key={i} className="button-fields">
          <Field
            id={id(`button-${i + 1}-title`)}
            label={richText.buttonLabel(i + 1)}
            maxLength={MAX_ACTION_TITLE_LENGTH}
            placeholder={base.rich.buttons[i]?.title ?? ''}
            value={button.title}
            onChange={(event) => setButton(i, 'title', event.target.value)}
          />
          <Field
            id={id(`button-${i + 1}-url`)}
            label={richText.buttonLink(i + 1)}
            type="url"
            placeholder="https://"
            value={button.url}
            onChange={(event) => setButton(i, 'url', event.target.value)}
            error={errorOf(id(`button-${i + 1}-url`))}
          />
        </div>
      ))}
      <p className="hint variant-buttons-note">{t('send.variantButtonsNote')}</p>
      <button type="button" className="button button-small button-danger-outline" onClick={onRemove}>
        {t('send.removeVariant', { name })}
      </button>
    </>
  );
}

/** "Try on a sample first, then send the winner to the rest": the share and the minutes, both or neither. */
export function SampleFields({
  sample,
  onChange,
  problemOf,
  error,
}: {
  sample: SampleDraft;
  onChange: (sample: SampleDraft) => void;
  /** The browser's own finding under a field, by id. */
  problemOf: (field: 'sample-percent' | 'sample-minutes') => ReactNode;
  /** The API's refusal of the test's settings (INVALID_INPUT), under them. */
  error: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <fieldset className="sample-fields">
      <legend>{t('send.abTest')}</legend>
      <label className="scope-option">
        <input
          type="checkbox"
          checked={sample.enabled}
          onChange={(event) => onChange({ ...sample, enabled: event.target.checked })}
        />
        <span>
          <strong>{t('send.sampleFirst')}</strong>
          <span className="hint">{sample.enabled ? t('send.sampleHint') : t('send.splitHint')}</span>
        </span>
      </label>
      {sample.enabled && (
        <div className="sample-row">
          <div className="field">
            <label htmlFor="sample-percent">{t('send.samplePercent')}</label>
            <input
              id="sample-percent"
              name="sample-percent"
              type="number"
              inputMode="decimal"
              min={SAMPLE_PERCENT.min}
              max={SAMPLE_PERCENT.max}
              step="any"
              required
              value={sample.percent}
              onChange={(event) => onChange({ ...sample, percent: event.target.value })}
              aria-describedby="sample-percent-hint sample-percent-error"
            />
            <p className="hint" id="sample-percent-hint">
              {t('send.samplePercentHint', SAMPLE_PERCENT)}
            </p>
            {problemOf('sample-percent')}
          </div>
          <div className="field">
            <label htmlFor="sample-minutes">{t('send.winnerAfter')}</label>
            <input
              id="sample-minutes"
              name="sample-minutes"
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_WINNER_AFTER_MINUTES}
              step={1}
              required
              value={sample.minutes}
              onChange={(event) => onChange({ ...sample, minutes: event.target.value })}
              aria-describedby="sample-minutes-hint sample-minutes-error"
            />
            <p className="hint" id="sample-minutes-hint">
              {t('send.winnerAfterHint', { max: MAX_WINNER_AFTER_MINUTES })}
            </p>
            {problemOf('sample-minutes')}
          </div>
        </div>
      )}
      {error}
    </fieldset>
  );
}
