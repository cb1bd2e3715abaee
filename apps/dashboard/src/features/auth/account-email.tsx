import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client.js';
import { useMe } from '../../api/session.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { PASSWORD_LENGTHS } from './password-lengths.js';
import { useAskPasswordReset, useResendVerification, useResetPassword, useVerifyEmail } from './use-auth.js';
import './auth.css';

/** "Send the verification e-mail again" (signed in only: POST /auth/verify-email/resend → 202). */
export function ResendVerification({ className }: { className?: string }) {
  const { t } = useI18n();
  const resend = useResendVerification();
  return (
    <span className={className}>
      <button
        type="button"
        className="button button-small"
        onClick={() => resend.mutate()}
        disabled={resend.isPending || resend.isSuccess}
      >
        {resend.isPending ? t('verify.sending') : t('verify.resend')}
      </button>
      {resend.isSuccess && (
        <span role="status" className="success">
          {' '}
          {t('verify.sent')}
        </span>
      )}
      <ErrorMessage error={resend.error} />
    </span>
  );
}

/** Shown in the signed-in layout until the owner proves control of the e-mail. */
export function VerifyBanner() {
  const { t, rich } = useI18n();
  const me = useMe();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <section className="panel banner" aria-label={t('verify.bannerLabel')}>
      <p>{rich('verify.banner', { email: <strong>{me.data.email}</strong> })}</p>
      <ResendVerification />
    </section>
  );
}

/** `${PUBLIC_URL}/verify-email?token=…` (pinned): the link of the verification e-mail lands here. */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const me = useMe();
  const started = useRef(false);
  const { t, rich } = useI18n();
  usePageTitle(t('verify.title'));
  const verify = useVerifyEmail();
  // A link opened twice: the API says so (`alreadyVerified`), or, signed in, the account already is.
  const alreadyVerified =
    (verify.isSuccess && 'alreadyVerified' in verify.data) ||
    (verify.isError &&
      verify.error instanceof ApiError &&
      verify.error.code === 'INVALID_TOKEN' &&
      me.data?.emailVerified === true);
  useEffect(() => {
    // Once: the token is single use (StrictMode would run the effect twice).
    if (started.current || !token) return;
    started.current = true;
    verify.mutate(token);
  }, [token, verify]);

  return (
    <section className="auth-card panel">
      <h1>{t('verify.title')}</h1>
      {!token ? (
        <p className="error-message" role="alert">
          {t('verify.noToken')}
        </p>
      ) : alreadyVerified ? (
        <>
          <p className="success" role="status" data-testid="already-verified">
            {t('verify.already')}
          </p>
          <p>
            <Link to={me.data ? '/' : '/sign-in'} className="button button-primary">
              {me.data ? t('verify.home') : t('verify.signIn')}
            </Link>
          </p>
        </>
      ) : verify.isSuccess && 'user' in verify.data ? (
        <>
          <p className="success" role="status">
            {rich('verify.done', { email: <strong>{verify.data.user.email}</strong> })}
          </p>
          <p>
            <Link to="/" className="button button-primary">
              {t('verify.home')}
            </Link>
          </p>
        </>
      ) : verify.isError ? (
        <>
          <ErrorMessage error={verify.error} />
          {me.data ? (
            <p>
              {t('verify.askNew')} <ResendVerification />
            </p>
          ) : (
            <p className="muted">
              {rich('verify.signInForNew', {
                signIn: <Link to="/sign-in?next=%2Faccount">{t('verify.signIn')}</Link>,
              })}
            </p>
          )}
        </>
      ) : (
        <p role="status">{t('verify.verifying')}</p>
      )}
    </section>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const { t, rich } = useI18n();
  usePageTitle(t('forgot.title'));
  const ask = useAskPasswordReset();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate(email);
  };
  return (
    <section className="auth-card panel">
      <h1>{t('forgot.title')}</h1>
      {ask.isSuccess ? (
        <p className="success" role="status">
          {rich('forgot.sent', { email: <strong>{email}</strong> })}
        </p>
      ) : (
        <form onSubmit={onSubmit}>
          <p className="muted">{t('forgot.lead')}</p>
          <Field
            id="email"
            label={t('forgot.email')}
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={ask.error}
          />
          <button type="submit" className="button button-primary button-wide" disabled={ask.isPending}>
            {ask.isPending ? t('forgot.wait') : t('forgot.send')}
          </button>
        </form>
      )}
      <p className="muted">
        <Link to="/sign-in">{t('forgot.back')}</Link>
      </p>
    </section>
  );
}

/** `${PUBLIC_URL}/reset-password?token=…` (pinned): the link of the reset e-mail lands here. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const { t } = useI18n();
  usePageTitle(t('reset.title'));
  const reset = useResetPassword();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    reset.mutate({ token, password });
  };
  const tokenError = reset.error instanceof ApiError && reset.error.code === 'INVALID_TOKEN';
  return (
    <section className="auth-card panel">
      <h1>{t('reset.title')}</h1>
      {reset.isSuccess ? (
        <>
          <p className="success" role="status">
            {t('reset.done')}
          </p>
          <p>
            <Link to="/sign-in" className="button button-primary">
              {t('reset.signIn')}
            </Link>
          </p>
        </>
      ) : (
        <form onSubmit={onSubmit}>
          <Field
            id="password"
            label={t('reset.password')}
            type="password"
            autoComplete="new-password"
            required
            minLength={PASSWORD_LENGTHS.min}
            maxLength={PASSWORD_LENGTHS.max}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            hint={t('auth.passwordRule', PASSWORD_LENGTHS)}
            error={tokenError ? null : reset.error}
          />
          {tokenError && (
            <div>
              <ErrorMessage error={reset.error} />
              <p>
                <Link to="/forgot-password">{t('reset.askNew')}</Link>
              </p>
            </div>
          )}
          <button type="submit" className="button button-primary button-wide" disabled={reset.isPending || !token}>
            {reset.isPending ? t('reset.wait') : t('reset.submit')}
          </button>
        </form>
      )}
    </section>
  );
}
