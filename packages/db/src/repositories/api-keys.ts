import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { type ApiKeyScope, apiKeys, apps, type PushFormat } from '../schema.js';
import { type AuditContext, recordAudit } from './audit-log.js';

export type ApiKey = typeof apiKeys.$inferSelect;

/** What an authenticated API key stands for: the key, its app, and the app owner's plan. */
export interface ApiKeyPrincipal {
  key: ApiKey;
  appId: string;
  userId: string;
  plan: string;
  vapidPublicKey: string;
  vapidKeyVersion: number;
  allowedOrigins: string[];
  requireSignedTags: boolean;
  signaturesExpire: boolean;
  /** What the app's browsers receive; decides the size check of a send. */
  pushFormat: PushFormat;
  defaultUrl: string | null;
}

const ownedApp = (db: Database, userId: string, appId: string) =>
  db
    .select({ id: apps.id })
    .from(apps)
    .where(and(eq(apps.id, appId), eq(apps.userId, userId)));

/**
 * Creates a key for an app of `userId`; null when the app is not theirs (or does not exist),
 * `'limit'` when the app already has `maxKeys`. The app row is locked while counting, so concurrent
 * creations cannot pass the cap together.
 */
export async function createApiKey(
  db: Database,
  userId: string,
  appId: string,
  input: { name: string; scope: ApiKeyScope; keyHash: string; displayPrefix?: string },
  maxKeys: number,
  audit: AuditContext | null,
): Promise<ApiKey | 'limit' | null> {
  if (!isUuid(userId, appId)) return null;
  return db.transaction(async (tx) => {
    const [owned] = await tx
      .select({ id: apps.id })
      .from(apps)
      .where(and(eq(apps.id, appId), eq(apps.userId, userId)))
      .limit(1)
      .for('update');
    if (!owned) return null;
    const [existing] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(eq(apiKeys.appId, appId));
    if ((existing?.count ?? 0) >= maxKeys) return 'limit';
    const [key] = await tx
      .insert(apiKeys)
      .values({ appId, ...input })
      .returning();
    if (key && audit) {
      await recordAudit(
        tx,
        { appId },
        {
          ...audit,
          action: 'key.created',
          target: { type: 'key', id: key.id },
          details: { name: key.name, scope: key.scope },
        },
      );
    }
    return key ?? null;
  });
}

export async function listApiKeys(db: Database, userId: string, appId: string): Promise<ApiKey[]> {
  if (!isUuid(userId, appId)) return [];
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.appId, appId), inArray(apiKeys.appId, ownedApp(db, userId, appId))))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Revokes a key of `userId`'s app, recorded as `key.revoked` in the same transaction; false when not theirs. */
export async function deleteApiKey(
  db: Database,
  userId: string,
  appId: string,
  keyId: string,
  audit: AuditContext | null,
): Promise<boolean> {
  if (!isUuid(userId, appId, keyId)) return false;
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.appId, appId), inArray(apiKeys.appId, ownedApp(db, userId, appId))))
      .returning({ id: apiKeys.id, name: apiKeys.name, scope: apiKeys.scope });
    if (!deleted) return false;
    if (audit) {
      await recordAudit(
        tx,
        { appId },
        {
          ...audit,
          action: 'key.revoked',
          target: { type: 'key', id: deleted.id },
          details: { name: deleted.name, scope: deleted.scope },
        },
      );
    }
    return true;
  });
}

export const API_KEY_TOUCH_SECONDS = 60;

interface PrincipalRow {
  id: string;
  app_id: string;
  name: string;
  scope: ApiKeyScope;
  key_hash: string;
  display_prefix: string | null;
  last_used_at: string | Date | null;
  created_at: Date;
  user_id: string;
  plan: string;
  vapid_public_key: string;
  vapid_key_version: number;
  allowed_origins: string[];
  require_signed_tags: boolean;
  signatures_expire: boolean;
  push_format: PushFormat;
  default_url: string | null;
}

/**
 * The key lookup runs on every API-key request that misses the API's cache, so it is one prepared
 * statement. A suspended account's keys are not found (they are kept, and work again on resume). It
 * only reads: the key's use is recorded by `recordApiKeyUse`, which the caller does not wait for.
 */
export async function findApiKeyPrincipal(db: Database, keyHash: string): Promise<ApiKeyPrincipal | null> {
  const [row] = await db.$client<PrincipalRow[]>`
    select k.id, k.app_id, k.name, k.scope, k.key_hash, k.display_prefix, k.last_used_at, k.created_at,
      a.user_id, u.plan, a.vapid_public_key, a.vapid_key_version, a.allowed_origins, a.require_signed_tags,
      a.signatures_expire, a.push_format, a.default_url
    from api_keys k
    join apps a on a.id = k.app_id
    join users u on u.id = a.user_id
    where k.key_hash = ${keyHash} and u.suspended_at is null
    limit 1`;
  if (!row) return null;
  return {
    key: {
      id: row.id,
      appId: row.app_id,
      name: row.name,
      scope: row.scope,
      keyHash: row.key_hash,
      displayPrefix: row.display_prefix,
      // postgres.js hands timestamps over as text here (drizzle's parsers are installed on the client).
      lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
      createdAt: row.created_at,
    },
    appId: row.app_id,
    userId: row.user_id,
    plan: row.plan,
    vapidPublicKey: row.vapid_public_key,
    vapidKeyVersion: row.vapid_key_version,
    allowedOrigins: row.allowed_origins,
    requireSignedTags: row.require_signed_tags,
    signaturesExpire: row.signatures_expire,
    pushFormat: row.push_format,
    defaultUrl: row.default_url,
  };
}

export function apiKeyUseDue(lastUsedAt: Date | null, now = Date.now()): boolean {
  return lastUsedAt === null || now - lastUsedAt.getTime() >= API_KEY_TOUCH_SECONDS * 1000;
}

/**
 * Records a use of the key for the keys list: `last_used_at` is written only when it is older than
 * API_KEY_TOUCH_SECONDS (the database's clock decides, so instances that ask together write once).
 */
export async function recordApiKeyUse(db: Database, keyId: string): Promise<void> {
  await db.$client`
    update api_keys set last_used_at = now()
    where id = ${keyId}
      and (last_used_at is null or last_used_at < now() - make_interval(secs => ${API_KEY_TOUCH_SECONDS}))`;
}
