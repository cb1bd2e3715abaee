import type { App } from '@webpush/db';

/** An app as the API shows it (never its private key or identity secret). */
export const publicApp = (app: App) => ({
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
});
