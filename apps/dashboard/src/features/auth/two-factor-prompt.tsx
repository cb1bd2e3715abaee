import { type FormEvent, type ReactNode, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { ErrorMessage, LocalError } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n } from '../../i18n/index.js';
import { type SecondFactor, secondFactorOf } from './second-factor.js';

/** A wrong, replayed or used code is INVALID_CREDENTIALS, whose catalogue message names the password. */
const WRONG_CODE = new LocalError('twoFactor.wrongCode');

/**
 * The second step of a sign-in to an account with two-factor sign-in on: the authenticator's
 * six-digit code, or one of the recovery codes, in one field.
 */
export function TwoFactorPrompt({
  onSubmit,
  pending,
  error,
  footer,
}: {
  onSubmit: (factor: SecondFactor) => void;
  pending: boolean;
  error: unknown;
  footer?: ReactNode;
}) {
  const { t } = useI18n();
  const [code, setCode] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(secondFactorOf(code));
  };
  const wrong = error instanceof ApiError && error.code === 'INVALID_CREDENTIALS';
  return (
    <form onSubmit={submit} data-testid="two-factor-prompt">
      <p className="muted">{t('twoFactor.promptLead')}</p>
      <Field
        id="two-factor-code"
        label={t('twoFactor.codeLabel')}
        autoComplete="one-time-code"
        autoCapitalize="off"
        spellCheck={false}
        required
        // The prompt replaces the password form: the code field is where the person types next.
        autoFocus
        maxLength={64}
        value={code}
        onChange={(event) => setCode(event.target.value)}
        hint={t('twoFactor.codeHint')}
        error={wrong ? WRONG_CODE : null}
      />
      {!wrong && <ErrorMessage error={error} />}
      <button type="submit" className="button button-primary button-wide" disabled={pending}>
        {pending ? t('auth.wait') : t('twoFactor.verify')}
      </button>
      {footer}
    </form>
  );
}
