import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client.js';
import type { User } from '../../api/session.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { LocalError } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n } from '../../i18n/index.js';
import { useApps } from '../apps/use-apps.js';
import { secondFactorOf } from '../auth/second-factor.js';
import { useAccessTokens, useDeleteAccount } from './use-security.js';

/** The API's answers, said for this form: which of its fields to look at again. */
const ANSWERS: Record<string, LocalError> = {
  MISSING_FIELDS: new LocalError('deleteAccount.passwordRequired'),
  INVALID_CREDENTIALS: new LocalError('deleteAccount.wrongCredentials'),
  TOTP_REQUIRED: new LocalError('deleteAccount.codeRequired'),
};

/** What goes with the account, from what the dashboard already knows: its apps and tokens. */
function WhatGoes({ user }: { user: User }) {
  const { t, rich, plural } = useI18n();
  const apps = useApps();
  const tokens = useAccessTokens();
  const list = apps.data?.apps ?? [];
  const owned = list.filter((app) => app.role === 'owner');
  const shared = list.length - owned.length;
  return (
    <>
      <p>{t('deleteAccount.listLead')}</p>
      <ul className="delete-list" data-testid="delete-account-list">
        <li>{rich('deleteAccount.account', { email: <strong className="break-all">{user.email}</strong> })}</li>
        {owned.length === 0 ? (
          <li>{t('deleteAccount.noApps')}</li>
        ) : (
          <li>
            {plural('deleteAccount.apps.other', owned.length)}
            <ul>
              {owned.map((app) => (
                <li key={app.id}>
                  <strong className="break-all">{app.name}</strong>{' '}
                  <span className="muted">
                    {plural('deleteAccount.subscribers.other', app.stats.activeSubscribers)}
                  </span>
                </li>
              ))}
            </ul>
          </li>
        )}
        {shared > 0 && <li>{plural('deleteAccount.memberships.other', shared)}</li>}
        {(tokens.data?.tokens.length ?? 0) > 0 && (
          <li>{plural('deleteAccount.tokens.other', tokens.data?.tokens.length ?? 0)}</li>
        )}
      </ul>
      <p>
        <strong>{t('deleteAccount.final')}</strong>
      </p>
    </>
  );
}

/**
 * "Delete my account": a dialog that names what goes, then the password (none for an account made
 * with GitHub that never set one), the two-factor code when it is on, and the e-mail typed again.
 */
export function DeleteAccount({ user }: { user: User }) {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [form, setForm] = useState({ password: '', code: '', email: '' });
  const remove = useDeleteAccount((page) => navigate(page, { replace: true }));
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm((current) => ({ ...current, [field]: event.target.value }));
  const confirm = async () => {
    if (form.email.trim().toLowerCase() !== user.email.toLowerCase()) {
      throw new LocalError('deleteAccount.emailMismatch');
    }
    try {
      await remove.mutateAsync({
        ...(form.password === '' ? {} : { password: form.password }),
        ...(user.totpEnabled && form.code.trim() !== '' ? secondFactorOf(form.code) : {}),
      });
    } catch (error) {
      throw (error instanceof ApiError && ANSWERS[error.code]) || error;
    }
  };
  return (
    <section className="panel danger-zone" aria-labelledby="delete-account-title">
      <h3 id="delete-account-title">{t('deleteAccount.title')}</h3>
      <p className="muted">{t('deleteAccount.lead')}</p>
      <ConfirmButton
        label={t('deleteAccount.open')}
        title={t('deleteAccount.confirmTitle')}
        confirmLabel={t('deleteAccount.confirm')}
        onConfirm={confirm}
      >
        <WhatGoes user={user} />
        <Field
          id="delete-password"
          label={t('deleteAccount.password')}
          type="password"
          autoComplete="current-password"
          value={form.password}
          onChange={set('password')}
          hint={t('deleteAccount.passwordHint')}
        />
        {user.totpEnabled && (
          <Field
            id="delete-code"
            label={t('twoFactor.codeLabel')}
            autoComplete="one-time-code"
            autoCapitalize="off"
            spellCheck={false}
            maxLength={64}
            value={form.code}
            onChange={set('code')}
            hint={t('twoFactor.codeHint')}
          />
        )}
        <Field
          id="delete-email"
          label={t('deleteAccount.typeEmail', { email: user.email })}
          type="email"
          autoComplete="off"
          value={form.email}
          onChange={set('email')}
        />
      </ConfirmButton>
    </section>
  );
}
