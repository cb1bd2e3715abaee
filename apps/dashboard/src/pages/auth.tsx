import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, api, call } from '../api/client.js';
import { switchUser, useProviders } from '../api/session.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';

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

export function AuthPage({ mode }: { mode: Mode }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const providers = useProviders();
  const next = safeNext(params.get('next'));
  const signUp = mode === 'sign-up';

  useEffect(() => {
    document.title = `${signUp ? 'Create an account' : 'Sign in'} · Web Push`;
  }, [signUp]);

  const submit = useMutation({
    mutationFn: () =>
      call(
        signUp
          ? api.POST('/api/v1/auth/register', { body: { email, password } })
          : api.POST('/api/v1/auth/login', { body: { email, password } }),
      ),
    onSuccess: async (answer) => {
      switchUser(queryClient, answer.user);
      await navigate(next, { replace: true });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit.mutate();
  };
  const field = fieldOf(submit.error, mode);

  return (
    <section className="auth-card panel">
      <h1>{signUp ? 'Create your account' : 'Sign in'}</h1>
      <p className="muted">
        {signUp
          ? 'Free plan: one app, 1,000 subscribers and 30,000 sends a month.'
          : 'Send web push notifications to your visitors.'}
      </p>
      <form onSubmit={onSubmit} noValidate={false}>
        <Field
          id="email"
          label="E-mail"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={field === 'email' ? submit.error : null}
        />
        <Field
          id="password"
          label="Password"
          type="password"
          autoComplete={signUp ? 'new-password' : 'current-password'}
          required
          minLength={signUp ? 8 : undefined}
          maxLength={signUp ? 128 : undefined}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          hint={signUp ? '8 to 128 characters, not a common password.' : undefined}
          error={field === 'password' ? submit.error : null}
        />
        {!signUp && (
          <p className="hint">
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
        )}
        {field === null && <ErrorMessage error={submit.error} />}
        <button type="submit" className="button button-primary button-wide" disabled={submit.isPending}>
          {submit.isPending ? 'Please wait…' : signUp ? 'Create account' : 'Sign in'}
        </button>
      </form>
      <div className="oauth-slot">
        {providers.data?.github && (
          <a className="button button-wide button-github" href="/api/v1/auth/github">
            Sign in with GitHub
          </a>
        )}
      </div>
      <p className="muted">
        {signUp ? (
          <>
            Already have an account? <Link to={`/sign-in${params.size ? `?${params}` : ''}`}>Sign in</Link>
          </>
        ) : (
          <>
            New here? <Link to={`/sign-up${params.size ? `?${params}` : ''}`}>Create an account</Link>
          </>
        )}
      </p>
    </section>
  );
}
