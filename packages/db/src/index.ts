export { createDatabase, type Database, type DatabaseHandle } from './client.js';
export { isUuid } from './ids.js';
export * from './repositories/api-keys.js';
export * from './repositories/apps.js';
export * from './repositories/sessions.js';
export * from './repositories/subscriptions.js';
export * from './repositories/users.js';
export * as schema from './schema.js';
export { type ApiKeyScope, apiKeyScopes, type SubscriptionStatus } from './schema.js';
