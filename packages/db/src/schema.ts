import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Normalised: trimmed and lower-cased before it gets here. */
    email: text('email').notNull(),
    /** argon2id; null for accounts created through GitHub that never set a password. */
    passwordHash: text('password_hash'),
    githubId: bigint('github_id', { mode: 'number' }),
    plan: text('plan').notNull().default('free'),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('users_email_key').on(table.email), uniqueIndex('users_github_id_key').on(table.githubId)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** HMAC-SHA-256 of the `wps_…` token under API_KEY_PEPPER; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('sessions_token_hash_key').on(table.tokenHash),
    index('sessions_user_id_idx').on(table.userId),
  ],
);

export const apps = pgTable(
  'apps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    vapidPublicKey: text('vapid_public_key').notNull(),
    /** AES-256-GCM under ENCRYPTION_KEY (`v1.iv.tag.ciphertext`); never returned by the API. */
    vapidPrivateKeySealed: text('vapid_private_key_sealed').notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('apps_user_id_idx').on(table.userId)],
);

export const apiKeyScopes = ['subscribe_only', 'notify', 'full'] as const;
export type ApiKeyScope = (typeof apiKeyScopes)[number];

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    name: text('name').notNull().default(''),
    scope: text('scope').$type<ApiKeyScope>().notNull(),
    /** HMAC-SHA-256 of the `wpk_…` secret under API_KEY_PEPPER. */
    keyHash: text('key_hash').notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('api_keys_key_hash_key').on(table.keyHash), index('api_keys_app_id_idx').on(table.appId)],
);

export const subscriptionStatuses = ['active', 'expired'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    status: text('status').$type<SubscriptionStatus>().notNull().default('active'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    expiredAt: timestamp('expired_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('subscriptions_app_endpoint_key').on(table.appId, table.endpoint),
    // Keyset pagination of an app's active subscribers during fan-out.
    index('subscriptions_app_active_idx').on(table.appId, table.id).where(sql`${table.status} = 'active'`),
  ],
);
