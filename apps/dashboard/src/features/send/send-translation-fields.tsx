import { type KeyboardEvent, useState } from 'react';
import { LocalError } from '../../components/error-panel.js';
import { Field, type Problem } from '../../components/field.js';
import { languageName } from '../../components/language-tag.js';
import { LanguageTagList } from '../../components/language-tag-list.js';
import { useI18n } from '../../i18n/index.js';
import type { Draft } from './send-draft.js';
import {
  MAX_TRANSLATIONS,
  newLanguageProblem,
  type TranslationDraft,
  translationFieldId,
} from './send-translations.js';

/**
 * The language tabs above the notification's fields: the default text, then each translation, and a
 * field to add a language. With no translation there is only that field.
 */
export function LanguageTabs({
  translations,
  active,
  onSelect,
  onAdd,
}: {
  translations: TranslationDraft[];
  /** 0 for the default text, 1 for the first translation… */
  active: number;
  onSelect: (index: number) => void;
  onAdd: (language: string) => void;
}) {
  const { t, language } = useI18n();
  const [tag, setTag] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const names = [t('send.languageDefault'), ...translations.map((translation) => translation.language)];
  const onKeyDown = (event: KeyboardEvent) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (active + step + names.length) % names.length;
    onSelect(next);
    document.getElementById(`language-tab-${next}`)?.focus();
  };
  const add = () => {
    const trimmed = tag.trim();
    const found = newLanguageProblem(trimmed, translations);
    setProblem(found);
    if (found) return;
    onAdd(trimmed);
    setTag('');
  };
  return (
    <div className="language-bar">
      {translations.length > 0 && (
        <div className="variant-tabs" role="tablist" aria-label={t('send.languages')}>
          {names.map((name, index) => (
            <button
              key={name}
              id={`language-tab-${index}`}
              type="button"
              role="tab"
              className="variant-tab"
              aria-selected={index === active}
              aria-controls="language-panel"
              tabIndex={index === active ? 0 : -1}
              title={index > 0 ? (languageName(name, language) ?? undefined) : undefined}
              onClick={() => onSelect(index)}
              onKeyDown={onKeyDown}
            >
              {name}
            </button>
          ))}
        </div>
      )}
      {translations.length < MAX_TRANSLATIONS && (
        <div className="language-add">
          <label htmlFor="new-language">{t('send.addLanguageLabel')}</label>
          <div className="language-add-row">
            <input
              id="new-language"
              list="translation-languages"
              placeholder="ja, en, pt-BR"
              value={tag}
              aria-invalid={problem ? true : undefined}
              aria-describedby="new-language-error"
              onChange={(event) => {
                setProblem(null);
                setTag(event.target.value);
              }}
              onKeyDown={(event) => {
                // Enter adds the language; it must not send the form.
                if (event.key === 'Enter') {
                  event.preventDefault();
                  add();
                }
              }}
            />
            <button type="button" className="button button-small" onClick={add}>
              {t('send.addLanguage')}
            </button>
          </div>
          <LanguageTagList id="translation-languages" language={language} />
          {problem && (
            <p className="error-message" role="alert" id="new-language-error">
              {t(problem.key, problem.values)}
            </p>
          )}
        </div>
      )}
    </div>
  );
}

const TITLE_MISSING = new LocalError('send.translationTitleMissing');

/** One language's fields: the title is required, an empty body or link is the default text's. */
export function TranslationFields({
  index,
  translation,
  base,
  onChange,
  onRemove,
  errorOf,
  titleProblem,
}: {
  /** 0 for the first translation. */
  index: number;
  translation: TranslationDraft;
  base: Draft;
  onChange: (translation: TranslationDraft) => void;
  onRemove: () => void;
  errorOf: (field: string) => unknown;
  titleProblem: boolean;
}) {
  const { t, language } = useI18n();
  const id = (field: 'title' | 'body' | 'url') => translationFieldId(index, field);
  const name = languageName(translation.language, language);
  return (
    <>
      <p className="hint variant-note">
        {t('send.translationNote', {
          language: name ? `${translation.language} (${name})` : translation.language,
        })}
      </p>
      <Field
        id={id('title')}
        label={t('send.fieldTitle')}
        required
        placeholder={base.title}
        value={translation.title}
        onChange={(event) => onChange({ ...translation, title: event.target.value })}
        error={titleProblem ? TITLE_MISSING : undefined}
      />
      <div className="field">
        <label htmlFor={id('body')}>{t('send.fieldBody')}</label>
        <textarea
          id={id('body')}
          name={id('body')}
          rows={3}
          placeholder={base.body}
          value={translation.body}
          onChange={(event) => onChange({ ...translation, body: event.target.value })}
        />
      </div>
      <Field
        id={id('url')}
        label={t('send.fieldUrl')}
        type="url"
        placeholder={base.url || 'https://'}
        value={translation.url}
        onChange={(event) => onChange({ ...translation, url: event.target.value })}
        error={errorOf(id('url'))}
      />
      <button type="button" className="button button-small button-danger-outline" onClick={onRemove}>
        {t('send.removeLanguage', { language: translation.language })}
      </button>
    </>
  );
}
