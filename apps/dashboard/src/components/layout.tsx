import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { useMe } from '../api/session.js';
import { VerifyBanner } from '../pages/account-email.js';

export function Layout() {
  const me = useMe();
  const signedIn = Boolean(me.data);
  // /verify-email has its own way to resend.
  const { pathname } = useLocation();
  const banner = signedIn && pathname !== '/verify-email';
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="container header-row">
          <Link to="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            Web Push
          </Link>
          <nav aria-label="Main">
            <ul className="nav-list">
              {signedIn && (
                <li>
                  <NavLink to="/" end>
                    Apps
                  </NavLink>
                </li>
              )}
              <li>
                <NavLink to="/pricing">Pricing</NavLink>
              </li>
              <li>
                <a href="/docs">API docs</a>
              </li>
              {signedIn ? (
                <li>
                  <NavLink to="/account">Account</NavLink>
                </li>
              ) : (
                me.isSuccess && (
                  <li>
                    <NavLink to="/sign-in">Sign in</NavLink>
                  </li>
                )
              )}
            </ul>
          </nav>
        </div>
      </header>
      <main id="main" className="container" tabIndex={-1}>
        {banner && <VerifyBanner />}
        <Outlet />
      </main>
    </>
  );
}
