import { Navigate, Route, Routes } from 'react-router';
import { Layout } from './components/layout.js';
import { RequireUser } from './components/require-user.js';
import { AccountPage } from './pages/account.js';
import { AppLayout } from './pages/app-layout.js';
import { AppsPage } from './pages/apps.js';
import { AuthPage } from './pages/auth.js';
import { KeysPage } from './pages/keys.js';
import { NotFoundPage } from './pages/not-found.js';
import { NotificationsPage } from './pages/notifications.js';
import { OverviewPage } from './pages/overview.js';
import { PricingPage } from './pages/pricing.js';
import { SendPage } from './pages/send.js';
import { SubscribersPage } from './pages/subscribers.js';
import { TryItPage } from './pages/try-it.js';

/**
 * Client routes. The API answers every browser navigation with this app, so each of these is also a
 * link that works on reload. /verify-email, /reset-password and /forgot-password are reserved for the
 * account pages that come with e-mail verification.
 */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/sign-in" element={<AuthPage mode="sign-in" />} />
        <Route path="/sign-up" element={<AuthPage mode="sign-up" />} />
        <Route path="/pricing" element={<PricingPage />} />
        <Route element={<RequireUser />}>
          <Route index element={<AppsPage />} />
          <Route path="/apps" element={<Navigate to="/" replace />} />
          <Route path="/apps/:appId" element={<AppLayout />}>
            <Route index element={<OverviewPage />} />
            <Route path="send" element={<SendPage />} />
            <Route path="notifications" element={<NotificationsPage />} />
            <Route path="subscribers" element={<SubscribersPage />} />
            <Route path="keys" element={<KeysPage />} />
            <Route path="try" element={<TryItPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
          <Route path="/account" element={<AccountPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
