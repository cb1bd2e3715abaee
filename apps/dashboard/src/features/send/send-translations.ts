import { MAX_TRANSLATIONS } from '@webpush/plans';
import type { Problem } from '../../components/field.js';
import { isLanguageTag } from '../../components/language-tag.js';
import type { Draft } from './send-draft.js';

/*
 * One send in several languages (docs/sending.md): the send's own text is the default, each
 * translation gives a title and, when filled in, a body and a link for the subscribers of one
 * language. The bounds are the API's own (@webpush/plans).
 */

export { MAX_TRANSLATIONS };

/** One language's text as typed: an empty body or link is the send's own. */
export interface TranslationDraft {
  language: string;
  title: string;
  body: string;
  url: string;
}

/** The ids of a translation's fields, `translation-1-title` for the first one. */
export const translationFieldId = (index: number, field: 'title' | 'body' | 'url') =>
  `translation-${index + 1}-${field}`;

/** Why `tag` cannot be added next to `existing`, or null when it can. */
export function newLanguageProblem(tag: string, existing: TranslationDraft[]): Problem | null {
  if (!tag) return { key: 'send.languageMissing' };
  if (!isLanguageTag(tag)) return { key: 'send.languageInvalid', values: { tag } };
  // The API refuses two keys that differ only in case: they would match the same subscribers.
  if (existing.some((translation) => translation.language.toLowerCase() === tag.toLowerCase()))
    return { key: 'send.languageTwice', values: { tag } };
  if (existing.length >= MAX_TRANSLATIONS) return { key: 'send.languagesFull', values: { max: MAX_TRANSLATIONS } };
  return null;
}

/** `translations` as the API takes them, or the first one without a title (by index). */
export function translationsPayloadOf(
  translations: TranslationDraft[],
): { translations?: Record<string, { title: string; body?: string; url?: string }> } | { untitled: number } {
  if (translations.length === 0) return {};
  const payload: Record<string, { title: string; body?: string; url?: string }> = {};
  for (const [index, translation] of translations.entries()) {
    if (!translation.title.trim()) return { untitled: index };
    const entry: { title: string; body?: string; url?: string } = { title: translation.title };
    if (translation.body) entry.body = translation.body;
    if (translation.url) entry.url = translation.url;
    payload[translation.language] = entry;
  }
  return { translations: payload };
}

/** What the subscribers of a language receive: the send with the translation's filled-in fields over it. */
export const translatedDraft = (draft: Draft, translation: TranslationDraft): Draft => ({
  ...draft,
  title: translation.title || draft.title,
  body: translation.body || draft.body,
  url: translation.url || draft.url,
});
