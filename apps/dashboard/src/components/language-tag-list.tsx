import type { Language } from '../i18n/index.js';
import { languageName } from './language-tag.js';

/** Language tags offered as you type one (any BCP 47 tag may be typed): common ones of the web. */
const SUGGESTED = [
  ...['ja', 'en', 'en-US', 'en-GB', 'zh', 'zh-CN', 'zh-TW', 'ko', 'es', 'fr', 'de', 'pt', 'pt-BR', 'it'],
  ...['id', 'th', 'vi', 'ru', 'nl', 'pl', 'tr', 'ar', 'hi'],
];

/** A `<datalist>` of common language tags, each named in the page's language, for an input's `list`. */
export function LanguageTagList({ id, language }: { id: string; language: Language }) {
  return (
    <datalist id={id}>
      {SUGGESTED.map((tag) => (
        <option key={tag} value={tag}>
          {languageName(tag, language) ?? tag}
        </option>
      ))}
    </datalist>
  );
}
