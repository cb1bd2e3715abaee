import { cancelScheduledNotification, type Database, isUuid, publicNotification } from '@webpush/db';
import { AppError } from '@webpush/errors';

/** Moved to @webpush/db: webhooks send the same notification object as the API shows. */
export { publicNotification };

/** Cancels a scheduled send of `appId` (docs/sending.md): 404 for none of the app's, 409 once started. */
export async function cancelNotification(db: Database, appId: string, id: string) {
  const result = isUuid(id) ? await cancelScheduledNotification(db, appId, id) : null;
  if (result === null) throw new AppError('NOT_FOUND');
  if (result.kind === 'not_cancelable') throw new AppError('NOT_CANCELABLE');
  return publicNotification(result.notification);
}
