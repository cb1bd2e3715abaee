import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, call } from '../api/client.js';
import { useMe } from '../api/session.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language, useI18n } from '../i18n/index.js';
import './language-picker.css';

/**
 * Switches the dashboard's language and remembers the pick (cookie). Signed in, the account's
 * language (the one its e-mails are written in) follows, also when the pick comes before the page
 * knows who is signed in: it is saved once that answer is in.
 */
export function useChangeLanguage() {
  const { setLanguage } = useI18n();
  const me = useMe();
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: (language: Language) => call(api.PATCH('/api/v1/auth/me', { body: { language } })),
    onSuccess: ({ user }) => queryClient.setQueryData(['me'], user),
  });
  const { mutate } = save;
  const waiting = useRef<Language | null>(null);
  useEffect(() => {
    const language = waiting.current;
    if (language === null || me.data === undefined) return;
    waiting.current = null;
    if (me.data && me.data.language !== language) mutate(language);
  }, [me.data, mutate]);
  return {
    change: (language: Language) => {
      setLanguage(language);
      if (me.data === undefined) waiting.current = language;
      else if (me.data && me.data.language !== language) mutate(language);
    },
    error: save.error,
  };
}

/** The header's language switch: one link-like button per language, the current one marked. */
export function LanguagePicker() {
  const { language, t } = useI18n();
  const { change } = useChangeLanguage();
  return (
    <fieldset className="language-picker">
      <legend className="visually-hidden">{t('layout.language')}</legend>
      {LANGUAGES.map((option) => (
        <button
          key={option}
          type="button"
          lang={option}
          className="language-option"
          aria-pressed={option === language}
          onClick={() => change(option)}
        >
          {LANGUAGE_NAMES[option]}
        </button>
      ))}
    </fieldset>
  );
}
