import type { notifications } from '../../schema.js';

export type Notification = typeof notifications.$inferSelect;

/** What the API shows of a notification: its progress and what was sent. */
export type NotificationSummary = Pick<
  Notification,
  | 'id'
  | 'status'
  | 'targets'
  | 'sent'
  | 'failed'
  | 'expired'
  | 'skipped'
  | 'shown'
  | 'clicked'
  | 'actionClicks'
  | 'converted'
  | 'conversionValue'
  | 'payload'
  | 'createdAt'
  | 'completedAt'
  | 'sendAt'
  | 'errorCode'
  | 'failureReasons'
  | 'variantStats'
  | 'winner'
  | 'winnerAt'
>;
