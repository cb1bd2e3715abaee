import { plans } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client.js';
import { useProviders } from '../../api/session.js';
import { ErrorMessage, LocalError } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { PASSWORD_LENGTHS } from './password-lengths.js';
import { TwoFactorPrompt } from './two-factor-prompt.js';
import { useSignIn } from './use-auth.js';
import './auth.css';

type Mode = 'sign-in' | 'sign-up';

/** Which field an API error concerns; anything else belongs to the form as a whole. */
function fieldOf(error: unknown, mode: Mode): 'email' | 'password' | null {
  if (!(error instanceof ApiError)) return null;
  if (error.code === 'INVALID_EMAIL' || error.code === 'EMAIL_IN_USE') return 'email';
  if (error.code === 'INVALID_INPUT' && mode === 'sign-up') return 'password';
  return null;
}

/** Only paths of this site: `next` comes from the address bar. */
const safeNext = (next: string | null) => (next?.startsWith('/') && !next.startsWith('//') ? next : '/');

const isTotpRequired = (error: unknown) => error instanceof ApiError && error.code === 'TOTP_REQUIRED';

export function AuthPage({ mode }: { mode: Mode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // The password was right and the account asks for its two-factor code (401 TOTP_REQUIRED).
  const [askingCode, setAskingCode] = useState(false);
  const [params] = useSearchParams();
  // Where "Delete my account" ends.
  const accountDeleted = mode === 'sign-in' && params.get('account') === 'deleted';
  const navigate = useNavigate();
  const providers = useProviders();
  const next = safeNext(params.get('next'));
  const signUp = mode === 'sign-up';

  const { t, plural } = useI18n();
  // The Free plan's figures, from the plans package the API enforces.
  const freePlanLead = plural('auth.signUpLead.other', plans.free.apps ?? 0, {
    subscribers: plans.free.activeSubscribers ?? 0,
    sends: plans.free.sendsPerMonth ?? 0,
  });
  usePageTitle(signUp ? t('auth.signUpTitle') : t('auth.signInTitle'));

  const submit = useSignIn(signUp, () => navigate(next, { replace: true }));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit.mutate({ email, password }, { onError: (error) => setAskingCode(isTotpRequired(error)) });
  };
  const field = fieldOf(submit.error, mode);
  // The API says INVALID_INPUT; the page says which rule the password broke.
  const length = [...password].length;
  const passwordError =
    field === 'password'
      ? new LocalError(
          length < PASSWORD_LENGTHS.min
            ? 'auth.passwordTooShort'
            : length > PASSWORD_LENGTHS.max
              ? 'auth.passwordTooLong'
              : 'auth.passwordCommon',
          PASSWORD_LENGTHS,
        )
      : null;
  // An answer about what was typed before goes as soon as it changes.
  const edit = (set: (value: string) => void) => (event: { target: { value: string } }) => {
    if (submit.isError) submit.reset();
    set(event.target.value);
  };

  if (askingCode) {
    return (
      <section className="auth-card panel">
        <h1>{t('twoFactor.promptTitle')}</h1>
        <TwoFactorPrompt
          onSubmit={(factor) => submit.mutate({ email, password, ...factor })}
          pending={submit.isPending}
          error={isTotpRequired(submit.error) ? null : submit.error}
          footer={
            <p className="muted">
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  submit.reset();
                  setAskingCode(false);
                }}
              >
                {t('twoFactor.startOver')}
              </button>
            </p>
          }
        />
      </section>
    );
  }

  return (
    <section className="auth-card panel">
      {accountDeleted && (
        <p className="success" role="status" data-testid="account-deleted">
          {t('deleteAccount.done')}
        </p>
      )}
      <h1>{signUp ? t('auth.signUpHeading') : t('auth.signInTitle')}</h1>
      <p className="muted">{signUp ? freePlanLead : t('auth.signInLead')}</p>
      <form onSubmit={onSubmit} noValidate={false}>
        <Field
          id="email"
          label={t('auth.email')}
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={edit(setEmail)}
          error={field === 'email' ? submit.error : null}
        />
        <Field
          id="password"
          label={t('auth.password')}
          type="password"
          autoComplete={signUp ? 'new-password' : 'current-password'}
          required
          value={password}
          onChange={edit(setPassword)}
          hint={signUp ? t('auth.passwordRule', PASSWORD_LENGTHS) : undefined}
          error={passwordError}
        />
        {!signUp && (
          <p className="hint">
            <Link to="/forgot-password">{t('auth.forgot')}</Link>
          </p>
        )}
        {field === null && <ErrorMessage error={submit.error} />}
        <button type="submit" className="button button-primary button-wide" disabled={submit.isPending}>
          {submit.isPending ? t('auth.wait') : signUp ? t('auth.createAccount') : t('auth.signIn')}
        </button>
      </form>
      <div className="oauth-slot">
        {providers.data?.github && (
          <a className="button button-wide button-github" href="/api/v1/auth/github">
            {t('auth.github')}
          </a>
        )}
      </div>
      <p className="muted">
        {signUp ? (
          <>
            {t('auth.haveAccount')} <Link to={`/sign-in${params.size ? `?${params}` : ''}`}>{t('auth.signIn')}</Link>
          </>
        ) : (
          <>
            {t('auth.newHere')} <Link to={`/sign-up${params.size ? `?${params}` : ''}`}>{t('auth.createLink')}</Link>
          </>
        )}
      </p>
    </section>
  );
}
