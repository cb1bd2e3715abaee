import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const userRoles = ['customer', 'operator'] as const;
export type UserRole = (typeof userRoles)[number];

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
    /**
     * The owner proved control of `email`: by the link of our verification e-mail, or because GitHub
     * verified it (accounts created or linked through GitHub sign-in). GitHub links only to verified accounts.
     */
    emailVerified: boolean('email_verified').notNull().default(false),
    language: text('language').$type<'ja' | 'en'>().notNull().default('ja'),
    role: text('role').$type<UserRole>().notNull().default('customer'),
    /** Set while the account is suspended: its API keys and sessions do not authenticate. Nothing is deleted. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true }),
    /** The TOTP secret (base32), sealed under ENCRYPTION_KEY; set by the setup step, in force once `totpEnabledAt` is set. */
    totpSecretSealed: text('totp_secret_sealed'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true }),
    /** The 30-second step of the last code that signed in: no code of that step or before signs in again. */
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
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
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }).notNull().defaultNow(),
    userAgent: text('user_agent'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('sessions_token_hash_key').on(table.tokenHash),
    index('sessions_user_id_idx').on(table.userId),
    index('sessions_expires_at_idx').on(table.expiresAt),
  ],
);

/**
 * `totp_sign_in`: a GitHub sign-in to an account with two-factor sign-in on, waiting for its code
 * (docs/accounts.md); redeemed by the code, never e-mailed.
 */
export const accountTokenPurposes = ['verify_email', 'reset_password', 'totp_sign_in'] as const;
export type AccountTokenPurpose = (typeof accountTokenPurposes)[number];

/** Single-use tokens sent by e-mail; `used_at` is set by the one UPDATE that redeems it. */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').$type<AccountTokenPurpose>().notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('account_tokens_token_hash_key').on(table.tokenHash),
    index('account_tokens_user_id_idx').on(table.userId),
    index('account_tokens_expires_at_idx').on(table.expiresAt),
  ],
);

/** A personal access token (`wpt_…`): acts as its user on /apps/** (docs/accounts.md). */
export const personalAccessTokens = pgTable(
  'personal_access_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** HMAC-SHA-256 of the token under API_KEY_PEPPER; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('personal_access_tokens_token_hash_key').on(table.tokenHash),
    index('personal_access_tokens_user_id_idx').on(table.userId, table.createdAt),
  ],
);

/** Single-use recovery codes of two-factor sign-in, stored only as keyed hashes. */
export const totpRecoveryCodes = pgTable(
  'totp_recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('totp_recovery_codes_user_code_key').on(table.userId, table.codeHash)],
);

export const auditActorTypes = ['user', 'key', 'operator'] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

/**
 * Who did what (migration 0029): append-only (a trigger refuses changes, and deletes of entries
 * younger than 365 days). An entry is in an app's log (`appId`) or an account's own (`userId`);
 * neither is a foreign key, so the record outlives what it names.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().default(sql`uuid_time_ordered()`),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    appId: uuid('app_id'),
    userId: uuid('user_id'),
    actorType: text('actor_type').$type<AuditActorType>().notNull(),
    actorId: text('actor_id').notNull(),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ip: text('ip'),
  },
  (table) => [
    index('audit_log_app_idx').on(table.appId, table.at.desc(), table.id.desc()).where(sql`${table.appId} is not null`),
    index('audit_log_user_idx')
      .on(table.userId, table.at.desc(), table.id.desc())
      .where(sql`${table.userId} is not null`),
    index('audit_log_at_idx').on(table.at),
  ],
);

export const planRequestStatuses = ['open', 'granted'] as const;
export type PlanRequestStatus = (typeof planRequestStatuses)[number];

/** A request for another plan: one open request per account; asking again changes the plan asked for. */
export const planRequests = pgTable(
  'plan_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    plan: text('plan').notNull(),
    message: text('message'),
    status: text('status').$type<PlanRequestStatus>().notNull().default('open'),
    createdAt: createdAt(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
    resolvedBy: uuid('resolved_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (table) => [
    uniqueIndex('plan_requests_open_user_key').on(table.userId).where(sql`${table.status} = 'open'`),
    index('plan_requests_open_created_idx').on(table.createdAt, table.id).where(sql`${table.status} = 'open'`),
  ],
);

export interface FrequencyCap {
  max: number;
  hours: number;
}

export const pushFormats = ['legacy', 'declarative'] as const;
export type PushFormat = (typeof pushFormats)[number];

export const apps = pgTable(
  'apps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    vapidPublicKey: text('vapid_public_key').notNull(),
    /** AES-256-GCM under ENCRYPTION_KEY, bound to the app id (`v1` rows predate the binding); never returned. */
    vapidPrivateKeySealed: text('vapid_private_key_sealed').notNull(),
    vapidKeyVersion: integer('vapid_key_version').notNull().default(1),
    /** Origins allowed to use the app's subscribe_only keys; empty = any. */
    allowedOrigins: text('allowed_origins').array().notNull().default(sql`'{}'::text[]`),
    /** The key customers' servers sign uids with (`uidSignature`), sealed like the VAPID private key. */
    identitySecretSealed: text('identity_secret_sealed'),
    requireSignedTags: boolean('require_signed_tags').notNull().default(false),
    signaturesExpire: boolean('signatures_expire').notNull().default(false),
    pushFormat: text('push_format').$type<PushFormat>().notNull().default('legacy'),
    /** The page a click opens when a notification has no `url` (required for `declarative`). */
    defaultUrl: text('default_url'),
    /** The zone of subscriptions that have none (an IANA name as `Intl` names it). */
    timeZone: text('time_zone').notNull().default('UTC'),
    /** At most `max` pushes of this app to one subscription in `hours`; null: no cap. */
    frequencyCap: jsonb('frequency_cap').$type<FrequencyCap>(),
    createdAt: createdAt(),
  },
  (table) => [index('apps_user_id_idx').on(table.userId)],
);

export const memberRoles = ['admin', 'editor', 'viewer'] as const;
export type MemberRole = (typeof memberRoles)[number];

/** A person of an app besides its owner (docs/accounts.md, "Teams"): goes with the app and with the user. */
export const appMembers = pgTable(
  'app_members',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MemberRole>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [primaryKey({ columns: [table.appId, table.userId] }), index('app_members_user_id_idx').on(table.userId)],
);

/** An invitation to an app by e-mail: single use, `used_at` set by the one UPDATE that redeems it. */
export const appInvitations = pgTable(
  'app_invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    /** Normalised like users.email: trimmed and lower-cased. */
    email: text('email').notNull(),
    role: text('role').$type<MemberRole>().notNull(),
    /** HMAC-SHA-256 of the token under API_KEY_PEPPER; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('app_invitations_token_hash_key').on(table.tokenHash),
    index('app_invitations_app_id_idx').on(table.appId, table.createdAt),
  ],
);

/**
 * An app's earlier VAPID keys, kept after a rotation for the subscriptions made with them (each
 * subscription records its key's `version`). Sealed like the current key, bound to the app; deleted
 * by the worker once no active subscription uses them.
 */
export const retiredVapidKeys = pgTable(
  'retired_vapid_keys',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    publicKey: text('public_key').notNull(),
    privateKeySealed: text('private_key_sealed').notNull(),
    retiredAt: timestamp('retired_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.appId, table.version] }),
    uniqueIndex('retired_vapid_keys_app_public_key').on(table.appId, table.publicKey),
  ],
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
    keyHash: text('key_hash').notNull(),
    /** The secret's first characters, to tell keys apart. Null for keys made before migration 0020. */
    displayPrefix: text('display_prefix'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex('api_keys_key_hash_key').on(table.keyHash), index('api_keys_app_id_idx').on(table.appId)],
);

export type SubscriptionTags = Record<string, string>;

export const subscriptionStatuses = ['active', 'expired'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const subscriptions = pgTable(
  'subscriptions',
  {
    /**
     * Time-ordered (a version 7 UUID's layout): new rows append to the indexes instead of writing a
     * page each after a checkpoint.
     */
    id: uuid('id').primaryKey().default(sql`uuid_time_ordered()`),
    /**
     * No foreign key: every statement that stores a subscription locks the app's row itself, and the
     * trigger `apps_delete_subscriptions` deletes an app's subscriptions with it.
     */
    appId: uuid('app_id').notNull(),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    status: text('status').$type<SubscriptionStatus>().notNull().default('active'),
    uid: text('uid'),
    tags: jsonb('tags').$type<SubscriptionTags>().notNull().default(sql`'{}'::jsonb`),
    /** BCP 47 tag as the browser or the page gave it (`ja-JP`); chooses a send's translation. */
    language: text('language'),
    /** IANA name as the runtime's `Intl` resolves it (`Asia/Tokyo`). */
    timeZone: text('time_zone'),
    vapidKeyVersion: integer('vapid_key_version').notNull().default(1),
    /** Permanent refusals in a row the subscription itself caused; at `RETIRE_AFTER_REFUSALS` it is retired. */
    refusals: smallint('refusals').notNull().default(0),
    /** This subscription's newest pushes first, at most 100: an app's frequency cap reads one element. */
    recentPushes: timestamp('recent_pushes', { withTimezone: true })
      .array()
      .notNull()
      .default(sql`'{}'::timestamptz[]`),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    expiredAt: timestamp('expired_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('subscriptions_app_endpoint_key').on(table.appId, table.endpoint),
    index('subscriptions_app_uid_idx')
      .on(table.appId, table.uid)
      .where(sql`${table.status} = 'active' and ${table.uid} is not null`),
    // GIN over jsonb, chosen over a tag table by measurement (docs/sending.md); only subscriptions
    // with tags, so a query says `tags <> '{}'` beside its containment to use it. jsonb_ops, so that
    // a segment's `tags ? key` can use it too (migration 0027).
    index('subscriptions_active_tags_idx')
      .using('gin', sql`${table.tags} jsonb_ops`)
      .where(sql`${table.status} = 'active' and ${table.tags} <> '{}'::jsonb`),
    index('subscriptions_app_active_idx').on(table.appId, table.id).where(sql`${table.status} = 'active'`),
    index('subscriptions_expired_at_idx').on(table.expiredAt).where(sql`${table.status} = 'expired'`),
    // What segments filter on besides tags and uids (migration 0027, docs/sending.md).
    index('subscriptions_app_language_idx')
      .on(table.appId, sql`lower(${table.language}) text_pattern_ops`)
      .where(sql`${table.status} = 'active' and ${table.language} is not null`),
    index('subscriptions_app_time_zone_idx')
      .on(table.appId, table.timeZone)
      .where(sql`${table.status} = 'active' and ${table.timeZone} is not null`),
    // One index for "every status", one for a status filter: any page of the list is a range scan without a sort.
    index('subscriptions_app_created_idx').on(
      table.appId,
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    index('subscriptions_app_status_created_idx').on(
      table.appId,
      table.status,
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
  ],
);

/**
 * Active subscriptions per owner, in 16 stripes whose sum is the count, so one owner's subscribes
 * do not commit in single file behind one row's lock (docs/architecture.md, "Plan limits under
 * concurrency"; the functions are in migrations 0010 and 0014). Moved in the same statement as
 * every change of a subscription into or out of `active`.
 */
export const subscriberCounters = pgTable(
  'subscriber_counters',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    stripe: smallint('stripe').notNull().default(0),
    active: integer('active').notNull().default(0),
    balancedFor: integer('balanced_for'),
  },
  (table) => [primaryKey({ columns: [table.userId, table.stripe] })],
);

/**
 * Each app's active subscriptions, exactly: the sum of its stripes. Kept by triggers on
 * `subscriptions` (migration 0032) in the statement that inserts, deletes or changes the status of a
 * subscription; read by `count_active_subscribers(app)`.
 */
export const appSubscriberCounts = pgTable(
  'app_subscriber_counts',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    stripe: smallint('stripe').notNull(),
    active: bigint('active', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.appId, table.stripe] })],
);

/**
 * Each app's active subscriptions per time zone (`''`: none), the sum of its stripes; kept by
 * triggers on `subscriptions` (migration 0040) as `app_subscriber_counts` is, and read by
 * `count_active_subscribers_by_zone(app)` when a `localTime` send to all of an app is accepted.
 */
export const appZoneSubscriberCounts = pgTable(
  'app_zone_subscriber_counts',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    timeZone: text('time_zone').notNull(),
    stripe: smallint('stripe').notNull(),
    active: bigint('active', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.appId, table.timeZone, table.stripe] })],
);

/**
 * The webhook attempts in flight per app across every worker process, when the queues live in
 * PostgreSQL (with Redis queues they are counted in Redis): one row per attempt, held until
 * `expires_at` at most. Unlogged (migration 0043); taken by `take_webhook_slot(app, token, slots,
 * lease_ms)`.
 */
export const webhookAppSlots = pgTable(
  'webhook_app_slots',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    token: uuid('token').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.appId, table.token] })],
);

/** Saved segments of an app (migration 0028); a send copies the expression it targets. */
export const segments = pgTable(
  'segments',
  {
    id: uuid('id').primaryKey().default(sql`uuid_time_ordered()`),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    expression: jsonb('expression').$type<SegmentExpression>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('segments_app_created_idx').on(table.appId, table.createdAt, table.id)],
);

export const notificationStatuses = ['scheduled', 'queued', 'sending', 'completed', 'failed', 'canceled'] as const;
export type NotificationStatus = (typeof notificationStatuses)[number];

/** `uids` / `tags` and `all` are resolved when the send starts, by keyset, never as a list in memory. */
export const notificationTargetKinds = ['all', 'endpoint', 'batch', 'uids', 'tags', 'segment'] as const;
export type NotificationTargetKind = (typeof notificationTargetKinds)[number];

export const urgencies = ['very-low', 'low', 'normal', 'high'] as const;
export type Urgency = (typeof urgencies)[number];

/** A button of a notification (docs/sending.md); `url` defaults to the notification's. */
export interface NotificationAction {
  action: string;
  title: string;
  url?: string;
  icon?: string;
}

/** A segment of an app's active subscriptions (docs/sending.md, "Segments"); validated by the API. */
export type SegmentExpression =
  | { tag: string; equals?: string; in?: string[] }
  | { uid: string[] }
  | { language: string }
  | { timeZone: string }
  | { subscribedWithinDays: number }
  | { and: SegmentExpression[] }
  | { or: SegmentExpression[] }
  | { not: SegmentExpression };

/** What a subscription of that language receives instead of the send's own title, body and url. */
export interface NotificationTranslation {
  title: string;
  body?: string;
  url?: string;
}

export interface NotificationPayload {
  title: string;
  body: string;
  url?: string;
  icon?: string;
  badge?: string;
  image?: string;
  actions?: NotificationAction[];
  requireInteraction?: boolean;
  silent?: boolean;
  renotify?: boolean;
  tag?: string;
  data?: Record<string, unknown>;
  /** The number on the app's icon (0 clears it). */
  appBadge?: number;
  /** By language tag; chosen per subscription by the worker. */
  translations?: Record<string, NotificationTranslation>;
  /** Alternatives to this content (an A/B test): variants B, C and D; a field left out is the send's. */
  variants?: NotificationVariant[];
  /** With `winnerAfterMinutes`: the share of the targets the variants are tried on first. */
  sample?: number;
  winnerAfterMinutes?: number;
}

/** One alternative of an A/B test (docs/engagement.md). */
export interface NotificationVariant {
  title?: string;
  body?: string;
  url?: string;
  icon?: string;
  image?: string;
  actions?: NotificationAction[];
}

/** A variant's counts, by variant letter, in `notifications.variant_stats`; a count never made is absent. */
export type VariantStats = Record<
  string,
  Partial<Record<'sent' | 'failed' | 'expired' | 'shown' | 'clicked' | 'converted', number>>
>;

export const notifications = pgTable(
  'notifications',
  {
    /**
     * Time-ordered (migration 0026); the accept statement passes one made the same way. Unique, but
     * the table's key is (id, app_id, created_at): partitioned by month of `created_at` (migration 0044).
     */
    id: uuid('id').notNull().default(sql`uuid_time_ordered()`),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    payload: jsonb('payload').$type<NotificationPayload>().notNull(),
    ttl: integer('ttl').notNull(),
    urgency: text('urgency').$type<Urgency>().notNull(),
    topic: text('topic'),
    targetKind: text('target_kind').$type<NotificationTargetKind>().notNull(),
    subscriptionIds: uuid('subscription_ids').array(),
    targetUids: text('target_uids').array(),
    targetTags: jsonb('target_tags').$type<SubscriptionTags>(),
    /** A `segment` audience: the expression (a saved segment's is copied at acceptance), resolved when the send starts. */
    targetSegment: jsonb('target_segment').$type<SegmentExpression>(),
    status: text('status').$type<NotificationStatus>().notNull().default('queued'),
    sendAt: timestamp('send_at', { withTimezone: true }),
    /** `HH:MM`: each target is pushed when its zone shows it (`notification_local_groups`). */
    localTime: text('local_time'),
    /** At most this many pushes in any minute; null: as fast as the worker goes. */
    throttlePerMinute: integer('throttle_per_minute'),
    /** When the audience was resolved: the fan-out takes the subscribers that existed then. Null: `created_at`. */
    startedAt: timestamp('started_at', { withTimezone: true }),
    errorCode: text('error_code'),
    /** Sends reserved in `monthly_usage` at acceptance; `sent + failed + expired` reaches it on completion. */
    targets: integer('targets').notNull(),
    sent: integer('sent').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    expired: integer('expired').notNull().default(0),
    /** Targets the app's frequency cap held back. */
    skipped: integer('skipped').notNull().default(0),
    shown: integer('shown').notNull().default(0),
    clicked: integer('clicked').notNull().default(0),
    actionClicks: jsonb('action_clicks').$type<Record<string, number>>().notNull().default({}),
    converted: integer('converted').notNull().default(0),
    /** The sum of the counted conversions' values (numeric, so a sum of prices stays exact). */
    conversionValue: numeric('conversion_value', { mode: 'number' }).notNull().default(0),
    failureReasons: jsonb('failure_reasons').$type<Record<string, number>>().notNull().default(sql`'{}'::jsonb`),
    /** Per-variant counts of an A/B test (migration 0039). */
    variantStats: jsonb('variant_stats').$type<VariantStats>().notNull().default(sql`'{}'::jsonb`),
    /** When the winner of a sampled A/B test is due; set once the sample is planned. */
    winnerAt: timestamp('winner_at', { withTimezone: true }),
    /** The winning variant's letter, once chosen. */
    winner: text('winner'),
    /** Targets of the sample (`ceil(sample × targets)`) and the seed of the hash that chose them. */
    sampleSize: integer('sample_size'),
    sampleSeed: bigint('sample_seed', { mode: 'bigint' }),
    /** The largest (hash, id) of the sample: the second phase takes the targets above it. */
    sampleBoundHash: bigint('sample_bound_hash', { mode: 'bigint' }),
    sampleBoundId: uuid('sample_bound_id'),
    /** `Idempotency-Key` header; a key older than 24 h is released (set to null) before it is reused. */
    idempotencyKey: text('idempotency_key'),
    acceptedResponse: jsonb('accepted_response').$type<Record<string, unknown>>(),
    /** Fan-out progress, kept here so each planning step reads one row instead of every chunk planned before it. */
    planned: integer('planned').notNull().default(0),
    planCursor: uuid('plan_cursor'),
    fannedOutAt: timestamp('fanned_out_at', { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [
    // The key of the partitioned table; `(app_id, idempotency_key)` is unique in each partition (its
    // own index, `<partition>_app_idempotency_key`, made with it by `create_notification_partitions`).
    unique('notifications_key').on(table.id, table.appId, table.createdAt),
    // The dashboard's history, daily usage and this month's sends of an app: all range scans on this one index.
    index('notifications_app_created_idx').on(
      table.appId,
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    index('notifications_unfinished_idx').on(table.updatedAt).where(sql`${table.status} in ('queued', 'sending')`),
    index('notifications_scheduled_idx').on(table.sendAt).where(sql`${table.status} = 'scheduled'`),
    index('notifications_winner_due_idx')
      .on(table.winnerAt)
      .where(sql`${table.winner} is null and ${table.winnerAt} is not null`),
    // Retention: the oldest finished notifications, a batch at a time.
    index('notifications_finished_created_idx')
      .on(table.createdAt)
      .where(sql`${table.status} in ('completed', 'failed', 'canceled')`),
  ],
);

/**
 * The delivery plan of a notification and what each part achieved. The fan-out inserts one row per
 * chunk of subscription ids (attempt 1); a chunk that has to re-send some pushes later (429, 5xx)
 * inserts a row for them with the next attempt. A row is counted exactly once: the transaction that
 * sets `completed_at` also adds its counts to the notification, so a re-run chunk changes nothing.
 */
export const notificationChunks = pgTable(
  'notification_chunks',
  {
    /** With `appId` and `notificationCreatedAt`, the key of the notification (same month's partition). */
    notificationId: uuid('notification_id').notNull(),
    appId: uuid('app_id').notNull(),
    /** The notification's `created_at`: the partition key (migration 0044). */
    notificationCreatedAt: timestamp('notification_created_at', { withTimezone: true }).notNull(),
    firstSubscriptionId: uuid('first_subscription_id').notNull(),
    attempt: integer('attempt').notNull(),
    /** Sorted ascending; the fan-out's keyset cursor is the last id of the newest first-attempt chunk. */
    subscriptionIds: uuid('subscription_ids').array().notNull(),
    lastSubscriptionId: uuid('last_subscription_id').notNull(),
    notBefore: timestamp('not_before', { withTimezone: true }).notNull().defaultNow(),
    sent: integer('sent').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    expired: integer('expired').notNull().default(0),
    /** The subscriptions answered, written once when the chunk completes (until then: `notification_chunk_answers`). */
    answeredSubscriptionIds: uuid('answered_subscription_ids').array().notNull().default(sql`'{}'::uuid[]`),
    retrySubscriptionIds: uuid('retry_subscription_ids').array().notNull().default(sql`'{}'::uuid[]`),
    retryAfterMs: integer('retry_after_ms').notNull().default(0),
    /** An A/B test's letter of each subscription, in the order of `subscriptionIds`; null without variants. */
    variants: text('variants'),
    /** One character per `answeredSubscriptionIds` entry: s(ent), f(ailed), e(xpired), r(etry). */
    answeredKinds: text('answered_kinds').notNull().default(''),
    /** Why each failed subscription failed (the push service's answer), by subscription id. */
    failureDetails: jsonb('failure_details').$type<Record<string, string>>(),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [
    unique('notification_chunks_key').on(
      table.notificationId,
      table.firstSubscriptionId,
      table.attempt,
      table.appId,
      table.notificationCreatedAt,
    ),
  ],
);

/**
 * A `localTime` send's plan: one row per distinct UTC instant, with the zones whose clock shows the
 * asked time then (`unzoned`: also the subscriptions without a zone, which take the app's). Started
 * by the worker when due, then planned into chunks like a whole notification is, with its own cursor.
 */
export const notificationLocalGroups = pgTable(
  'notification_local_groups',
  {
    notificationId: uuid('notification_id').notNull(),
    appId: uuid('app_id').notNull(),
    /** The notification's `created_at`: the partition key (migration 0044). */
    notificationCreatedAt: timestamp('notification_created_at', { withTimezone: true }).notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    zones: text('zones').array().notNull(),
    unzoned: boolean('unzoned').notNull(),
    targets: integer('targets').notNull(),
    planned: integer('planned').notNull().default(0),
    planCursor: uuid('plan_cursor'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    fannedOutAt: timestamp('fanned_out_at', { withTimezone: true }),
  },
  (table) => [
    unique('notification_local_groups_key').on(
      table.notificationId,
      table.dueAt,
      table.appId,
      table.notificationCreatedAt,
    ),
    index('notification_local_groups_due_idx').on(table.dueAt).where(sql`${table.startedAt} is null`),
  ],
);

/**
 * Progress inside a chunk being sent, so a re-run after a crash sends only what was not answered.
 * Rows are appended, never updated: two runs of one chunk at once (a lock that lapsed) may both
 * record a subscription, and readers de-duplicate.
 */
export const notificationChunkAnswers = pgTable(
  'notification_chunk_answers',
  {
    notificationId: uuid('notification_id').notNull(),
    appId: uuid('app_id').notNull(),
    /** The notification's `created_at`: the partition key (migration 0044). */
    notificationCreatedAt: timestamp('notification_created_at', { withTimezone: true }).notNull(),
    firstSubscriptionId: uuid('first_subscription_id').notNull(),
    attempt: integer('attempt').notNull(),
    subscriptionIds: uuid('subscription_ids').array().notNull(),
    kinds: text('kinds').array().notNull(),
    retryAfterMs: integer('retry_after_ms').notNull().default(0),
  },
  (table) => [
    // The key to the chunk is one per partition (`<partition>_notification_fk`, migration 0044).
    index('notification_chunk_answers_chunk_idx').on(table.notificationId, table.firstSubscriptionId, table.attempt),
  ],
);

export const monthlyUsage = pgTable(
  'monthly_usage',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    month: date('month', { mode: 'string' }).notNull(),
    sends: bigint('sends', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.userId, table.month] })],
);

export const engagementTypes = ['shown', 'clicked', 'converted'] as const;
export type EngagementType = (typeof engagementTypes)[number];
/**
 * The `type` of a `notification_events` row: an engagement type, or `action:<action>` for a click
 * on a button (counted once per subscription and action, beside its `clicked`).
 */
export type EngagementEventType = EngagementType | `action:${string}`;

/**
 * The app id the rows of `notification_events_legacy` carry: stored before migration 0041, they
 * got the new columns without a rewrite, as this constant and a `notificationCreatedAt` of -infinity.
 */
export const LEGACY_EVENT_APP_ID = '00000000-0000-0000-0000-000000000000';

/**
 * The durable de-duplication of engagement events: a conflict means "already counted". Partitioned
 * by month of `notificationCreatedAt` (migration 0041; partitions are made by
 * `create_notification_event_partitions`, dropped by retention), so every key carries it and the app.
 */
export const notificationEvents = pgTable(
  'notification_events',
  {
    /** The key to the notification is one per partition (`<partition>_notification_fk`, migration 0044). */
    notificationId: uuid('notification_id').notNull(),
    subscriptionId: uuid('subscription_id')
      .notNull()
      .references(() => subscriptions.id, { onDelete: 'cascade' }),
    type: text('type').$type<EngagementEventType>().notNull(),
    /** A `converted` row's value, when the conversion carried one. */
    value: numeric('value', { mode: 'number' }),
    /** The A/B variant the subscription received (null without variants). */
    variant: text('variant'),
    createdAt: createdAt(),
    /** The notification's app, copied from it when the event is counted. */
    appId: uuid('app_id').notNull(),
    /** The notification's `created_at`, copied from it when the event is counted: the partition key. */
    notificationCreatedAt: timestamp('notification_created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    unique('notification_events_key').on(
      table.notificationId,
      table.subscriptionId,
      table.type,
      table.appId,
      table.notificationCreatedAt,
    ),
    // Deleting a subscription cascades here; without it that would scan the whole table.
    index('notification_events_subscription_idx').on(table.subscriptionId),
  ],
);

export const webhookEventTypes = ['notification.completed', 'notification.failed', 'subscription.expired'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
export type WebhookMessageStatus = 'pending' | 'delivered' | 'failed';

/** One webhook endpoint per app. The signing secret (`whsec_…`) is sealed like VAPID private keys. */
export const webhooks = pgTable('webhooks', {
  appId: uuid('app_id')
    .primaryKey()
    .references(() => apps.id, { onDelete: 'cascade' }),
  url: text('url').notNull(),
  events: text('events').array().$type<WebhookEventType[]>().notNull(),
  secretSealed: text('secret_sealed').notNull(),
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  failuresInARow: integer('failures_in_a_row').notNull().default(0),
  pausedUntil: timestamp('paused_until', { withTimezone: true }),
  failingSince: timestamp('failing_since', { withTimezone: true }),
  /** A short reason ("HTTP 500", "timeout", "connection refused"), never the receiver's answer. */
  lastErrorReason: text('last_error_reason'),
  lastErrorStatus: integer('last_error_status'),
  lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
  /** Set when the streak outlasted WEBHOOK_DISABLE_AFTER_MS: nothing is sent until the owner resumes. */
  disabledAt: timestamp('disabled_at', { withTimezone: true }),
});

/**
 * The webhook outbox: one row per event to deliver, written in the same transaction as the change
 * that caused it, and only when the app's webhook subscribes to that event. Its id is the
 * `webhook-id` of every attempt. `dedupe_key` makes the write idempotent (a re-run of the causing
 * step adds nothing). `body` is fixed at the first attempt so every retry sends the same bytes.
 */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    type: text('type').$type<WebhookEventType>().notNull(),
    subjectId: uuid('subject_id').notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    /** What the event reports, taken in the causing transaction when it may not outlive it (a subscriber). */
    data: jsonb('data').$type<Record<string, unknown>>(),
    body: text('body'),
    status: text('status').$type<WebhookMessageStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    queuedAt: timestamp('queued_at', { withTimezone: true }),
    createdAt: createdAt(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('webhook_messages_dedupe_key').on(table.dedupeKey),
    index('webhook_messages_pending_idx').on(table.createdAt).where(sql`${table.status} = 'pending'`),
    // Retention: the oldest events, a batch at a time.
    index('webhook_messages_created_idx').on(table.createdAt),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => webhookMessages.id, { onDelete: 'cascade' }),
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    status: integer('status'),
    durationMs: integer('duration_ms').notNull(),
    response: text('response'),
    error: text('error'),
    createdAt: createdAt(),
  },
  (table) => [
    index('webhook_attempts_app_created_idx').on(table.appId, table.createdAt.desc()),
    index('webhook_attempts_message_idx').on(table.messageId),
  ],
);

/**
 * An app's counts per UTC day (migration 0039), rolled up as they happen by triggers and
 * `add_app_day_stats`; a day is the sum of its stripes (one, unless writers met on it).
 */
export const appDayStats = pgTable(
  'app_day_stats',
  {
    appId: uuid('app_id')
      .notNull()
      .references(() => apps.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    stripe: smallint('stripe').notNull().default(0),
    sent: bigint('sent', { mode: 'number' }).notNull().default(0),
    failed: bigint('failed', { mode: 'number' }).notNull().default(0),
    expired: bigint('expired', { mode: 'number' }).notNull().default(0),
    skipped: bigint('skipped', { mode: 'number' }).notNull().default(0),
    shown: bigint('shown', { mode: 'number' }).notNull().default(0),
    clicked: bigint('clicked', { mode: 'number' }).notNull().default(0),
    converted: bigint('converted', { mode: 'number' }).notNull().default(0),
    subscribed: bigint('subscribed', { mode: 'number' }).notNull().default(0),
    unsubscribed: bigint('unsubscribed', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.appId, table.day, table.stripe] })],
);
