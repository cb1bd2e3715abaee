import { useEffect, useState } from 'react';
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
  // Below 720 px the links fold behind a menu button (layout.css); a navigation folds them again.
  const [menuOpen, setMenuOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: closes on every change of page
  useEffect(() => setMenuOpen(false), [pathname]);
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
          <button
            type="button"
            className="menu-button"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            <span className="menu-icon" aria-hidden="true" />
            <span className="visually-hidden">{t('layout.menu')}</span>
          </button>
          <nav id="main-nav" aria-label={t('layout.mainNav')} className={menuOpen ? 'main-nav open' : 'main-nav'}>
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
