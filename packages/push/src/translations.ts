import type { NotificationContent } from './payload.js';

/** A send's text in one language: what it leaves out is the send's own (docs/sending.md). */
export interface Translation {
  title: string;
  body?: string;
  url?: string;
}

export type Translations = Record<string, Translation>;

/**
 * Which entry of `translations` a subscription of `language` receives: the key equal to its
 * language (case-insensitively), else the key equal to its first subtag (`ja` for `ja-JP`), else
 * none (null: the send's own text). Keys are lower-cased once, so each target costs two lookups.
 */
export function translationChooser(translations: Translations | undefined): (language: string | null) => string | null {
  const keys = new Map<string, string>();
  for (const key of Object.keys(translations ?? {})) {
    const lower = key.toLowerCase();
    if (!keys.has(lower)) keys.set(lower, key);
  }
  if (keys.size === 0) return () => null;
  return (language) => {
    if (language === null) return null;
    const lower = language.toLowerCase();
    const exact = keys.get(lower);
    if (exact !== undefined) return exact;
    const dash = lower.indexOf('-');
    return dash > 0 ? (keys.get(lower.slice(0, dash)) ?? null) : null;
  };
}

/** The content with a translation's fields in place of the send's own. */
export function translatedContent<C extends NotificationContent>(content: C, translation: Translation | undefined): C {
  if (translation === undefined) return content;
  return {
    ...content,
    title: translation.title,
    ...(translation.body === undefined ? {} : { body: translation.body }),
    ...(translation.url === undefined ? {} : { url: translation.url }),
  };
}
