import type { App, AppRole } from '@webpush/db';

/** An app as the API shows it (never its private key or identity secret), with the caller's role on it. */
export const publicApp = (app: App, role: AppRole) => ({
  id: app.id,
  name: app.name,
  vapidPublicKey: app.vapidPublicKey,
  createdAt: app.createdAt.toISOString(),
  allowedOrigins: app.allowedOrigins,
  requireSignedTags: app.requireSignedTags,
  signaturesExpire: app.signaturesExpire,
  pushFormat: app.pushFormat,
  defaultUrl: app.defaultUrl,
  timeZone: app.timeZone,
  frequencyCap: app.frequencyCap,
  role,
});
