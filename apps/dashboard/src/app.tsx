import { Navigate, Route, Routes } from 'react-router';
import { Layout } from './components/layout.js';
import { NotFoundPage } from './components/not-found.js';
import { RequireUser } from './components/require-user.js';
import { AccountPage } from './features/account/account.js';
import { AppLayout } from './features/apps/app-layout.js';
import { AppsPage } from './features/apps/apps.js';
import { AuditLogPage } from './features/audit-log/audit-log.js';
import { ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './features/auth/account-email.js';
import { AuthPage } from './features/auth/auth.js';
import { LoginPage } from './features/auth/github-two-factor.js';
import { KeysPage } from './features/keys/keys.js';
import { AcceptInvitationPage } from './features/members/accept-invitation.js';
import { MembersPage } from './features/members/members.js';
import { NotificationPage } from './features/notifications/notification.js';
import { NotificationsPage } from './features/notifications/notifications.js';
import { OperatorPage } from './features/operator/operator.js';
import { OverviewPage } from './features/overview/overview.js';
import { PricingPage } from './features/pricing/pricing.js';
import { SegmentsPage } from './features/segments/segments.js';
import { SendPage } from './features/send/send.js';
import { SettingsPage } from './features/settings/settings.js';
import { SubscribersPage } from './features/subscribers/subscribers.js';
import { TryItPage } from './features/try-it/try-it.js';

/**
 * Client routes. The API answers every browser navigation with this app, so each of these is also a
 * link that works on reload. /verify-email and /reset-password are the (pinned) targets of the links
 * in the verification and reset e-mails; they work signed in or not. /login?twoFactor=github is where
 * the GitHub callback asks for the two-factor code. /accept-invitation (the
 * invitation e-mail's link) needs a session: a visitor signs in first and comes back.
 */
export function App() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route path="/sign-in" element={<AuthPage mode="sign-in" />} />
        <Route path="/sign-up" element={<AuthPage mode="sign-up" />} />
        <Route path="/login" element={<LoginPage />} />
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
            <Route path="notifications/:id" element={<NotificationPage />} />
            <Route path="subscribers" element={<SubscribersPage />} />
            <Route path="segments" element={<SegmentsPage />} />
            <Route path="keys" element={<KeysPage />} />
            <Route path="members" element={<MembersPage />} />
            <Route path="settings" element={<SettingsPage />} />
            <Route path="audit-log" element={<AuditLogPage />} />
            <Route path="try" element={<TryItPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
          <Route path="/account" element={<AccountPage />} />
          <Route path="/accept-invitation" element={<AcceptInvitationPage />} />
          <Route path="/operator" element={<OperatorPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
