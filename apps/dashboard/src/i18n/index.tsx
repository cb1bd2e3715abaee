/** @jsxRuntime automatic */
/** @jsxImportSource react */
// (The pragmas: the build prerenders with this file under tsx, which does not apply tsconfig's `jsx` to it.)
import { createContext, Fragment, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { en } from './en.js';
import { ja } from './ja.js';
import { isLanguage, LANGUAGE_COOKIE, type Language } from './language.js';

export type { Language } from './language.js';
export { LANGUAGE_NAMES, LANGUAGES } from './language.js';

/** Every message key of the dashboard (the English catalogue is the list; Japanese must match it). */
export type MessageKey = keyof typeof en;
export type Catalogue = Record<MessageKey, string>;

export const catalogues: Record<Language, Catalogue> = { ja, en };

export type MessageValues = Record<string, string | number>;

/** `{name}` placeholders replaced by `values` (numbers formatted for the language). */
export function format(language: Language, key: MessageKey, values?: MessageValues): string {
  const message = catalogues[language][key];
  if (!values) return message;
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) return whole;
    return typeof value === 'number' ? new Intl.NumberFormat(language).format(value) : value;
  });
}

export interface I18n {
  language: Language;
  /** The message for `key` in the current language. */
  t: (key: MessageKey, values?: MessageValues) => string;
  /** Like `t`, with placeholders filled by elements (a link, `<code>`) instead of text. */
  rich: (key: MessageKey, values: Record<string, ReactNode>) => ReactNode;
  /** English needs singular and plural; Japanese uses the `.other` form. */
  plural: (key: MessageKey & `${string}.other`, count: number, values?: MessageValues) => string;
  number: (value: number) => string;
  /** A date and time in the language's usual form (local time zone). */
  dateTime: (value: string | number | Date) => string;
  /** A calendar date. */
  date: (value: string | number | Date, options?: Intl.DateTimeFormatOptions) => string;
  setLanguage: (language: Language) => void;
}

export function createI18n(language: Language, setLanguage: (language: Language) => void = () => {}): I18n {
  const numbers = new Intl.NumberFormat(language);
  const dateTimes = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' });
  const t = (key: MessageKey, values?: MessageValues) => format(language, key, values);
  return {
    language,
    t,
    plural: (key, count, values) => {
      const one = key.replace(/\.other$/, '.one') as MessageKey;
      const chosen = language === 'en' && count === 1 && one in catalogues.en ? one : key;
      return t(chosen, { count, ...values });
    },
    rich: (key, values) =>
      catalogues[language][key].split(/(\{\w+\})/).map((part, index) => {
        const name = /^\{(\w+)\}$/.exec(part)?.[1];
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed message
        return <Fragment key={index}>{name !== undefined && name in values ? values[name] : part}</Fragment>;
      }),
    number: (value) => numbers.format(value),
    dateTime: (value) => dateTimes.format(new Date(value)),
    date: (value, options = { dateStyle: 'medium' }) =>
      new Intl.DateTimeFormat(language, options).format(new Date(value)),
    setLanguage,
  };
}

/**
 * The language the page was served in: the API writes it into `<html lang>` from the `wp_lang`
 * cookie, else from Accept-Language (Japanese when the browser prefers it, English otherwise).
 */
export function servedLanguage(): Language {
  const lang = document.documentElement.lang.slice(0, 2);
  if (isLanguage(lang)) return lang;
  return navigator.languages.some((tag) => tag.toLowerCase().startsWith('ja')) ? 'ja' : 'en';
}

/** Remembers a pick for a year (the API reads the cookie when it serves the next page). */
export function rememberLanguage(language: Language): void {
  // biome-ignore lint/suspicious/noDocumentCookie: a plain, non-secret preference the server must also see
  document.cookie = `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=31536000; SameSite=Lax`;
}

const I18nContext = createContext<I18n>(createI18n('en'));

export function I18nProvider({ initial, children }: { initial: Language; children: ReactNode }) {
  const [language, setLanguageState] = useState<Language>(initial);
  const setLanguage = useCallback((next: Language) => {
    rememberLanguage(next);
    setLanguageState(next);
  }, []);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  const value = useMemo(() => createI18n(language, setLanguage), [language, setLanguage]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

/** The current language's messages and formats. */
export const useI18n = (): I18n => useContext(I18nContext);

/** `document.title` for a page: "<page> · Web Push", in the current language. */
export function usePageTitle(page: string): void {
  const { t } = useI18n();
  useEffect(() => {
    document.title = t('common.titleSuffix', { page });
  }, [page, t]);
}
