import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { TwoFactorPrompt } from './two-factor-prompt.js';
import { useGithubTwoFactor } from './use-auth.js';
import './auth.css';

/**
 * /login?twoFactor=github: where the GitHub callback sends an account with two-factor sign-in on.
 * The code goes to POST /auth/github/totp with the cookie the callback set; then the apps. Any other
 * /login is the sign-in page.
 */
export function LoginPage() {
  const [params] = useSearchParams();
  const { search } = useLocation();
  if (params.get('twoFactor') !== 'github') return <Navigate to={`/sign-in${search}`} replace />;
  return <GithubTwoFactor />;
}

function GithubTwoFactor() {
  const { t } = useI18n();
  usePageTitle(t('twoFactor.promptTitle'));
  const navigate = useNavigate();
  const complete = useGithubTwoFactor(() => navigate('/', { replace: true }));
  // The waiting sign-in is single use and lasts 10 minutes: past that only a new GitHub sign-in helps.
  const expired = complete.error instanceof ApiError && complete.error.code === 'INVALID_TOKEN';
  return (
    <section className="auth-card panel">
      <h1>{t('twoFactor.promptTitle')}</h1>
      {expired ? (
        <>
          <p className="error-message" role="alert">
            {t('twoFactor.githubExpired')}
          </p>
          <p>
            <Link to="/sign-in" className="button button-primary">
              {t('twoFactor.signInAgain')}
            </Link>
          </p>
        </>
      ) : (
        <TwoFactorPrompt
          onSubmit={(factor) => complete.mutate(factor)}
          pending={complete.isPending}
          error={complete.error}
          footer={
            <p className="muted">
              <Link to="/sign-in">{t('twoFactor.signInAgain')}</Link>
            </p>
          }
        />
      )}
    </section>
  );
}
