import { type App, type Database, findApp, isUuid } from '@webpush/db';
import { AppError } from '@webpush/errors';

/** The user's app, or 404 — also for another user's app and a malformed id, so tenants never learn of each other. */
export async function ownedApp(db: Database, userId: string, appId: string): Promise<App> {
  const found = isUuid(appId) ? await findApp(db, userId, appId) : null;
  if (!found) throw new AppError('NOT_FOUND');
  return found;
}
