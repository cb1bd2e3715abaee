/** The dashboard's languages. Japanese is the first: the service's customers are Japanese teams. */
export const LANGUAGES = ['ja', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

export const isLanguage = (value: unknown): value is Language => value === 'ja' || value === 'en';

/**
 * The cookie that remembers a language picked in the dashboard. Not a secret and readable by the
 * page; the API reads it too, so a reload (and the prerendered /pricing) answers in the picked
 * language before any script runs.
 */
export const LANGUAGE_COOKIE = 'wp_lang';

/** Names of the languages in themselves, for the language picker. */
export const LANGUAGE_NAMES: Record<Language, string> = { ja: '日本語', en: 'English' };
