import { sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { isUuid } from '../ids.js';
import { type AuditContext, recordAudit } from './audit-log.js';

/*
 * Leaving and erasing (docs/accounts.md, docs/security.md): what is deleted is deleted, not expired,
 * in one transaction, and the audit entry that records it names no erased data.
 */

/**
 * Deletes the account and everything it owns in one transaction: its apps (their subscriptions by
 * the `apps_delete_subscriptions` trigger; keys, notifications, segments, webhooks and their
 * events, counters and memberships by foreign keys), its sessions, tokens, recovery codes, plan
 * requests, usage and memberships of other apps. `account.deleted` joins the account's own log
 * (which outlives it for the audit log's retention) without the e-mail. Returns the ids of the apps
 * deleted, or null when there is no such account.
 */
export async function deleteAccount(
  db: Database,
  userId: string,
  ip: string | null,
): Promise<{ appIds: string[] } | null> {
  if (!isUuid(userId)) return null;
  return db.transaction(async (tx) => {
    const found = await tx.execute<{ id: string }>(sql`select id from users where id = ${userId} for update`);
    if (found.length === 0) return null;
    // Locked before deleting, in id order: a concurrent subscribe to one of them waits, then finds no app.
    const owned = await tx.execute<{ id: string }>(
      sql`select id from apps where user_id = ${userId} order by id for update`,
    );
    await tx.execute(sql`delete from apps where user_id = ${userId}`);
    await tx.execute(sql`delete from users where id = ${userId}`);
    await tx.execute(sql`
      insert into audit_log (user_id, actor_type, actor_id, action, target_type, target_id, details, ip)
      values (${userId}::uuid, 'user', ${userId}, 'account.deleted', 'account', ${userId},
        ${JSON.stringify({ apps: owned.length })}::jsonb, ${ip})`);
    return { appIds: owned.map((row) => row.id) };
  });
}

/**
 * Erases one visitor of an app (GDPR article 17): every subscription carrying `uid`, active or
 * expired, is deleted with its engagement rows (by foreign key), its active ones given back to the
 * owner's subscriber count (the app's own count follows by trigger), and the `subscription.expired`
 * webhook events that copied it are deleted. `subscribers.erased` is recorded with the number
 * deleted, never the uid. Returns that number.
 */
export async function eraseSubscriber(db: Database, appId: string, uid: string, audit: AuditContext): Promise<number> {
  return db.transaction(async (tx) => {
    const [row] = await tx.execute<{ deleted: number }>(sql`
      with deleted as (delete from subscriptions where app_id = ${appId} and uid = ${uid} returning status)
      select (select count(*)::int from deleted) as deleted,
        release_subscriber_slots((select user_id from apps where id = ${appId}::uuid),
          (select count(*) from deleted where status = 'active')::int) as released`);
    const deleted = row?.deleted ?? 0;
    await tx.execute(sql`
      delete from webhook_messages
      where app_id = ${appId} and type = 'subscription.expired' and data -> 'subscriber' ->> 'uid' = ${uid}`);
    await recordAudit(
      tx,
      { appId },
      { ...audit, action: 'subscribers.erased', target: { type: 'subscribers', id: null }, details: { deleted } },
    );
    return deleted;
  });
}
