/**
 * Notifications: accepting a send (one statement that counts the audience, reserves the month's
 * sends and stores the notification, with its idempotency key), and reading them back.
 */
export * from './accept.js';
export * from './reads.js';
export type { Notification, NotificationSummary } from './types.js';
