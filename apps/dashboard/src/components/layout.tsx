import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { useMe } from '../api/session.js';
import { VerifyBanner } from '../features/auth/account-email.js';
import { useI18n } from '../i18n/index.js';
import { LanguagePicker } from './language-picker.js';
import './layout.css';

export function Layout() {
  const { t } = useI18n();
  const me = useMe();
  const signedIn = Boolean(me.data);
  // /verify-email has its own way to resend.
  const { pathname } = useLocation();
  const banner = signedIn && pathname !== '/verify-email';
  return (
    <>
      <a className="skip-link" href="#main">
        {t('layout.skip')}
      </a>
      <header className="site-header">
        <div className="container header-row">
          <Link to="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            {t('common.brand')}
          </Link>
          <nav aria-label={t('layout.mainNav')}>
            <ul className="nav-list">
              {signedIn && (
                <li>
                  <NavLink to="/" end>
                    {t('layout.apps')}
                  </NavLink>
                </li>
              )}
              <li>
                <NavLink to="/pricing">{t('layout.pricing')}</NavLink>
              </li>
              <li>
                <a href="/docs">{t('layout.apiDocs')}</a>
              </li>
              {me.data?.role === 'operator' && (
                <li>
                  <NavLink to="/operator">{t('layout.operator')}</NavLink>
                </li>
              )}
              {signedIn ? (
                <li>
                  <NavLink to="/account">{t('layout.account')}</NavLink>
                </li>
              ) : (
                me.isSuccess && (
                  <li>
                    <NavLink to="/sign-in">{t('layout.signIn')}</NavLink>
                  </li>
                )
              )}
            </ul>
          </nav>
          <LanguagePicker />
        </div>
      </header>
      <main id="main" className="container" tabIndex={-1}>
        {banner && <VerifyBanner />}
        <Outlet />
      </main>
    </>
  );
}
