import { cancelScheduledNotification, type Database, isUuid, type NotificationSummary } from '@webpush/db';
import { AppError } from '@webpush/errors';

/**
 * A notification as the API shows it, the same on every route: progress and engagement counts plus what was sent
 * (title, body and the payload's url, icon and badge when present), so a history can show both.
 */
export function publicNotification(notification: NotificationSummary) {
  const { payload } = notification;
  return {
    id: notification.id,
    status: notification.status,
    targets: notification.targets,
    sent: notification.sent,
    failed: notification.failed,
    expired: notification.expired,
    shown: notification.shown,
    clicked: notification.clicked,
    createdAt: notification.createdAt.toISOString(),
    completedAt: notification.completedAt?.toISOString() ?? null,
    ...(notification.sendAt === null ? {} : { sendAt: notification.sendAt.toISOString() }),
    ...(notification.errorCode === null ? {} : { errorCode: notification.errorCode }),
    title: payload.title,
    body: payload.body,
    ...(payload.url === undefined ? {} : { url: payload.url }),
    ...(payload.icon === undefined ? {} : { icon: payload.icon }),
    ...(payload.badge === undefined ? {} : { badge: payload.badge }),
  };
}

/** Cancels a scheduled send of `appId` (CONTRACT "Scheduled sends"): 404 for none of the app's, 409 once started. */
export async function cancelNotification(db: Database, appId: string, id: string) {
  const result = isUuid(id) ? await cancelScheduledNotification(db, appId, id) : null;
  if (result === null) throw new AppError('NOT_FOUND');
  if (result.kind === 'not_cancelable') throw new AppError('NOT_CANCELABLE');
  return publicNotification(result.notification);
}
