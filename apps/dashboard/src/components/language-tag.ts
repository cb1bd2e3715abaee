import type { Language } from '../i18n/language.js';

/** What a browser's language tag looks like (BCP 47, as the API checks it). */
export const LANGUAGE_TAG = /^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/;
export const MAX_LANGUAGE_TAG_LENGTH = 35;

/** Whether `tag` is a language tag the API takes. */
export const isLanguageTag = (tag: string) => tag.length <= MAX_LANGUAGE_TAG_LENGTH && LANGUAGE_TAG.test(tag);

/** The name of a language tag in the page's language (`ja` → 日本語 / Japanese), or null when unknown. */
export function languageName(tag: string, language: Language): string | null {
  try {
    const name = new Intl.DisplayNames([language], { type: 'language', fallback: 'none' }).of(tag);
    return name && name !== tag ? name : null;
  } catch {
    return null;
  }
}
