export { createDatabase, type Database, type DatabaseHandle, type Transaction } from './client.js';
export { isUuid } from './ids.js';
export { publicNotification } from './public-notification.js';
export * from './repositories/account-tokens.js';
export * from './repositories/api-keys.js';
export * from './repositories/app-day-stats.js';
export * from './repositories/apps.js';
export * from './repositories/audiences.js';
export * from './repositories/audit-log.js';
export * from './repositories/deliveries/index.js';
export * from './repositories/erasure.js';
export * from './repositories/events.js';
export * from './repositories/members.js';
export * from './repositories/notification-report.js';
export * from './repositories/notifications/index.js';
export { decodeCursor, type KeysetPosition, type Page } from './repositories/pagination.js';
export * from './repositories/personal-access-tokens.js';
export * from './repositories/plan-requests.js';
export * from './repositories/retention.js';
export * from './repositories/scheduled-sends.js';
export * from './repositories/segments.js';
export * from './repositories/sessions.js';
export * from './repositories/subscribe-batch.js';
export { repairSubscriberCounters, type SubscriberCountDrift } from './repositories/subscriber-counters.js';
export * from './repositories/subscription-export.js';
export * from './repositories/subscription-import.js';
export * from './repositories/subscriptions.js';
export * from './repositories/tenants.js';
export * from './repositories/two-factor.js';
export * from './repositories/usage.js';
export * from './repositories/users.js';
export * from './repositories/vapid-keys.js';
export * from './repositories/variant-winners.js';
export * from './repositories/webhook-outbox.js';
export * from './repositories/webhook-slots.js';
export * from './repositories/webhooks.js';
export * as schema from './schema.js';
export {
  type AccountTokenPurpose,
  type ApiKeyScope,
  type AuditActorType,
  apiKeyScopes,
  type EngagementEventType,
  type EngagementType,
  engagementTypes,
  type FrequencyCap,
  type MemberRole,
  memberRoles,
  type NotificationAction,
  type NotificationPayload,
  type NotificationStatus,
  type NotificationTargetKind,
  type NotificationTranslation,
  type NotificationVariant,
  type PlanRequestStatus,
  type PushFormat,
  pushFormats,
  type SegmentExpression,
  type SubscriptionStatus,
  type SubscriptionTags,
  type Urgency,
  type UserRole,
  urgencies,
  type VariantStats,
  type WebhookEventType,
  type WebhookMessageStatus,
  webhookEventTypes,
} from './schema.js';
export { isDatabaseUnreachable } from './unreachable.js';
