import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError, api, call } from '../api/client.js';
import { switchUser, useMe } from '../api/session.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';

/** "Send the verification e-mail again" (signed in only: POST /auth/verify-email/resend → 202). */
export function ResendVerification({ className }: { className?: string }) {
  const resend = useMutation({ mutationFn: () => call(api.POST('/api/v1/auth/verify-email/resend')) });
  return (
    <span className={className}>
      <button
        type="button"
        className="button button-small"
        onClick={() => resend.mutate()}
        disabled={resend.isPending || resend.isSuccess}
      >
        {resend.isPending ? 'Sending…' : 'Resend verification e-mail'}
      </button>
      {resend.isSuccess && (
        <span role="status" className="success">
          {' '}
          Sent: check your inbox.
        </span>
      )}
      <ErrorMessage error={resend.error} />
    </span>
  );
}

/** Shown in the signed-in layout until the owner proves control of the e-mail. */
export function VerifyBanner() {
  const me = useMe();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <section className="panel banner" aria-label="E-mail verification">
      <p>
        Please verify <strong>{me.data.email}</strong>: open the link we sent you.
      </p>
      <ResendVerification />
    </section>
  );
}

/** `${PUBLIC_URL}/verify-email?token=…` (pinned): the link of the verification e-mail lands here. */
export function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const queryClient = useQueryClient();
  const me = useMe();
  const started = useRef(false);
  useEffect(() => {
    document.title = 'Verify your e-mail · Web Push';
  }, []);
  const verify = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/verify-email', { body: { token } })),
    onSuccess: async (answer) => {
      // A /auth/me already in flight would land after this with `emailVerified: false` and bring the
      // banner back: cancel it, update the cached user when it is this one, then ask again.
      await queryClient.cancelQueries({ queryKey: ['me'] });
      const current = queryClient.getQueryData<{ id: string } | null>(['me']);
      if (current && current.id === answer.user.id) queryClient.setQueryData(['me'], answer.user);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  useEffect(() => {
    // Once: the token is single use (StrictMode would run the effect twice).
    if (started.current || !token) return;
    started.current = true;
    verify.mutate();
  }, [token, verify]);

  return (
    <section className="auth-card panel">
      <h1>Verify your e-mail</h1>
      {!token ? (
        <p className="error-message" role="alert">
          This link has no token. Open the link from the e-mail again.
        </p>
      ) : verify.isSuccess ? (
        <>
          <p className="success" role="status">
            Thank you: <strong>{verify.data.user.email}</strong> is verified.
          </p>
          <p>
            <Link to="/" className="button button-primary">
              Go to your apps
            </Link>
          </p>
        </>
      ) : verify.isError ? (
        <>
          <ErrorMessage error={verify.error} />
          {me.data ? (
            <p>
              Ask for a new link: <ResendVerification />
            </p>
          ) : (
            <p className="muted">
              <Link to="/sign-in?next=%2Faccount">Sign in</Link> to get a new link.
            </p>
          )}
        </>
      ) : (
        <p role="status">Verifying…</p>
      )}
    </section>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  useEffect(() => {
    document.title = 'Forgot your password · Web Push';
  }, []);
  const ask = useMutation({ mutationFn: () => call(api.POST('/api/v1/auth/password-reset', { body: { email } })) });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate();
  };
  return (
    <section className="auth-card panel">
      <h1>Forgot your password?</h1>
      {ask.isSuccess ? (
        <p className="success" role="status">
          If an account exists for <strong>{email}</strong>, we sent it a link to choose a new password. The link works
          for one hour.
        </p>
      ) : (
        <form onSubmit={onSubmit}>
          <p className="muted">We will send a link to choose a new password.</p>
          <Field
            id="email"
            label="E-mail"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={ask.error}
          />
          <button type="submit" className="button button-primary button-wide" disabled={ask.isPending}>
            {ask.isPending ? 'Please wait…' : 'Send the link'}
          </button>
        </form>
      )}
      <p className="muted">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </section>
  );
}

/** `${PUBLIC_URL}/reset-password?token=…` (pinned): the link of the reset e-mail lands here. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const queryClient = useQueryClient();
  useEffect(() => {
    document.title = 'Choose a new password · Web Push';
  }, []);
  const reset = useMutation({
    mutationFn: () => call(api.POST('/api/v1/auth/password-reset/confirm', { body: { token, password } })),
    // Every session of the user ended: this browser's too when it was signed in as them.
    onSuccess: async () => {
      const current = queryClient.getQueryData<{ id: string } | null>(['me']);
      if (current) switchUser(queryClient, null);
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    reset.mutate();
  };
  const tokenError = reset.error instanceof ApiError && reset.error.code === 'INVALID_TOKEN';
  return (
    <section className="auth-card panel">
      <h1>Choose a new password</h1>
      {reset.isSuccess ? (
        <>
          <p className="success" role="status">
            Your password is changed. Every session of your account was signed out, on every device.
          </p>
          <p>
            <Link to="/sign-in" className="button button-primary">
              Sign in
            </Link>
          </p>
        </>
      ) : (
        <form onSubmit={onSubmit}>
          <Field
            id="password"
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={128}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            hint="8 to 128 characters, not a common password."
            error={tokenError ? null : reset.error}
          />
          {tokenError && (
            <div>
              <ErrorMessage error={reset.error} />
              <p>
                <Link to="/forgot-password">Ask for a new link</Link>
              </p>
            </div>
          )}
          <button type="submit" className="button button-primary button-wide" disabled={reset.isPending || !token}>
            {reset.isPending ? 'Please wait…' : 'Set the new password'}
          </button>
        </form>
      )}
    </section>
  );
}
