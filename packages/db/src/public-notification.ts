import type { NotificationSummary } from './repositories/notifications/index.js';

/**
 * A notification as the API shows it, the same on every route and in webhooks: progress and engagement counts
 * plus what was sent (title, body and the payload's url, icon and badge when present), so a
 * history can show both.
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
    skipped: notification.skipped,
    shown: notification.shown,
    clicked: notification.clicked,
    actionClicks: notification.actionClicks,
    converted: notification.converted,
    conversionValue: notification.conversionValue,
    createdAt: notification.createdAt.toISOString(),
    completedAt: notification.completedAt?.toISOString() ?? null,
    ...(notification.sendAt === null ? {} : { sendAt: notification.sendAt.toISOString() }),
    ...(notification.errorCode === null ? {} : { errorCode: notification.errorCode }),
    // Only when some push failed: the notification's shape is otherwise what it always was.
    ...(Object.keys(notification.failureReasons).length === 0 ? {} : { failureReasons: notification.failureReasons }),
    title: payload.title,
    body: payload.body,
    ...(payload.url === undefined ? {} : { url: payload.url }),
    ...(payload.icon === undefined ? {} : { icon: payload.icon }),
    ...(payload.badge === undefined ? {} : { badge: payload.badge }),
    ...(payload.image === undefined ? {} : { image: payload.image }),
    ...(payload.actions === undefined ? {} : { actions: payload.actions }),
    ...(payload.tag === undefined ? {} : { tag: payload.tag }),
    ...(payload.appBadge === undefined ? {} : { appBadge: payload.appBadge }),
    ...(payload.translations === undefined ? {} : { translations: payload.translations }),
  };
}
