import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { ErrorMessage, LocalError } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n } from '../../i18n/index.js';
import { PASSWORD_LENGTHS } from '../auth/password-lengths.js';
import { useChangePassword } from './use-account.js';

const EMPTY = { current: '', next: '', confirm: '' };
/** INVALID_CREDENTIALS here means only the current password: the catalogue's message also names the e-mail. */
const WRONG_CURRENT = new LocalError('password.wrongCurrent');

/**
 * A new password for a signed-in owner who knows the current one: this session stays, every other
 * session of the account ends (the API's rule), so the sessions list below is asked for again.
 */
export function ChangePassword() {
  const { t } = useI18n();
  const [form, setForm] = useState(EMPTY);
  const [mismatch, setMismatch] = useState(false);
  const change = useChangePassword(() => setForm(EMPTY));
  const set = (field: keyof typeof EMPTY) => (event: { target: { value: string } }) => {
    if (change.isError || change.isSuccess) change.reset();
    if (field !== 'current') setMismatch(false);
    setForm((current) => ({ ...current, [field]: event.target.value }));
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (form.next !== form.confirm) {
      setMismatch(true);
      return;
    }
    change.mutate({ currentPassword: form.current, newPassword: form.next });
  };
  const code = change.error instanceof ApiError ? change.error.code : null;
  // Where the API's answer belongs: a wrong current password, or a new one it does not take.
  const currentError = code === 'INVALID_CREDENTIALS' ? WRONG_CURRENT : null;
  const newError = code === 'INVALID_INPUT' ? change.error : null;
  return (
    <section className="panel" aria-labelledby="password-title">
      <h2 id="password-title">{t('password.title')}</h2>
      <form onSubmit={onSubmit} className="narrow">
        <p className="muted">{t('password.lead')}</p>
        <Field
          id="current-password"
          label={t('password.current')}
          type="password"
          autoComplete="current-password"
          required
          value={form.current}
          onChange={set('current')}
          error={currentError}
        />
        <Field
          id="new-password"
          label={t('password.new')}
          type="password"
          autoComplete="new-password"
          required
          minLength={PASSWORD_LENGTHS.min}
          maxLength={PASSWORD_LENGTHS.max}
          value={form.next}
          onChange={set('next')}
          hint={t('auth.passwordRule', PASSWORD_LENGTHS)}
          error={newError}
        />
        <Field
          id="confirm-password"
          label={t('password.confirm')}
          type="password"
          autoComplete="new-password"
          required
          value={form.confirm}
          onChange={set('confirm')}
          error={mismatch ? new LocalError('password.mismatch') : null}
        />
        {!currentError && !newError && <ErrorMessage error={change.error} />}
        {change.isSuccess && (
          <p className="success" role="status">
            {t('password.changed')}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={change.isPending}>
          {change.isPending ? t('common.working') : t('password.submit')}
        </button>
      </form>
    </section>
  );
}
