import type { NotificationSummary } from './repositories/notifications/index.js';

const VARIANT_LETTERS = ['A', 'B', 'C', 'D'];

/** An A/B test's variants, `A` (the send's own content) first, each with its content and counts. */
function variantResults(notification: NotificationSummary) {
  const { payload, variantStats } = notification;
  const alternatives = payload.variants ?? [];
  return VARIANT_LETTERS.slice(0, alternatives.length + 1).map((name, index) => {
    const variant = index === 0 ? {} : (alternatives[index - 1] ?? {});
    const counts = variantStats[name] ?? {};
    const url = variant.url ?? payload.url;
    return {
      name,
      sent: counts.sent ?? 0,
      failed: counts.failed ?? 0,
      expired: counts.expired ?? 0,
      shown: counts.shown ?? 0,
      clicked: counts.clicked ?? 0,
      converted: counts.converted ?? 0,
      title: variant.title ?? payload.title,
      body: variant.body ?? payload.body,
      ...(url === undefined ? {} : { url }),
    };
  });
}

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
    // Only a send with variants has them; `winner` is null until a sample's winner is chosen.
    ...(payload.variants === undefined || payload.variants.length === 0
      ? {}
      : { variants: variantResults(notification) }),
    winner: notification.winner,
    // While a sample is being judged: when its winner is due.
    ...(notification.winnerAt === null || notification.winner !== null
      ? {}
      : { winnerAt: notification.winnerAt.toISOString() }),
  };
}
