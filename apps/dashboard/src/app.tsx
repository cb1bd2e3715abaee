import { Navigate, Route, Routes } from 'react-router';
import { Layout } from './components/layout.js';
import { RequireUser } from './components/require-user.js';
import { AccountPage } from './pages/account.js';
import { ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './pages/account-email.js';
import { AppLayout } from './pages/app-layout.js';
import { AppsPage } from './pages/apps.js';
import { AuthPage } from './pages/auth.js';
import { KeysPage } from './pages/keys.js';
import { NotFoundPage } from './pages/not-found.js';
import { NotificationsPage } from './pages/notifications.js';
import { OperatorPage } from './pages/operator.js';
import { OverviewPage } from './pages/overview.js';
import { PricingPage } from './pages/pricing.js';
import { SendPage } from './pages/send.js';
import { SettingsPage } from './pages/settings.js';
import { SubscribersPage } from './pages/subscribers.js';
import { TryItPage } from './pages/try-it.js';

/**
 * Client routes. The API answers every browser navigation with this app, so each of these is also a
 * link that works on reload. /verify-email and /reset-password are the (pinned) targets of the links
 * in the verification and reset e-mails; they work signed in or not.
 */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/sign-in" element={<AuthPage mode="sign-in" />} />
        <Route path="/sign-up" element={<AuthPage mode="sign-up" />} />
        <Route path="/pricing" element={<PricingPage />} />
        <Route path="/verify-email" element={<VerifyEmailPage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="/reset-password" element={<ResetPasswordPage />} />
        <Route element={<RequireUser />}>
          <Route index element={<AppsPage />} />
          <Route path="/apps" element={<Navigate to="/" replace />} />
          <Route path="/apps/:appId" element={<AppLayout />}>
            <Route index element={<OverviewPage />} />
            <Route path="send" element={<SendPage />} />
            <Route path="notifications" element={<NotificationsPage />} />
            <Route path="subscribers" element={<SubscribersPage />} />
            <Route path="keys" element={<KeysPage />} />
            <Route path="settings" element={<SettingsPage />} />
            <Route path="try" element={<TryItPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
          <Route path="/account" element={<AccountPage />} />
          <Route path="/operator" element={<OperatorPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
