import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import {
  apps,
  notifications,
  users,
  type WebhookEventType,
  type WebhookMessageStatus,
  webhookAttempts,
  webhookMessages,
  webhooks,
} from '../schema.js';
import { type AuditContext, recordAudit } from './audit-log.js';
import type { Notification } from './notifications/index.js';

export type Webhook = typeof webhooks.$inferSelect;
export type WebhookMessage = typeof webhookMessages.$inferSelect;

// --- The owner's side: every function takes the app id it filters on (checked to be the caller's). ---

export async function findWebhook(db: Database, appId: string): Promise<Webhook | null> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.appId, appId)).limit(1);
  return row ?? null;
}

/**
 * Creates the app's webhook, or changes its URL and events. `secretSealed` is used only when the
 * webhook is created: an existing webhook keeps its secret (rotation is its own step).
 */
export async function putWebhook(
  db: Database,
  appId: string,
  input: { url: string; events: WebhookEventType[]; secretSealed: string },
  audit: AuditContext | null,
): Promise<Webhook> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ url: webhooks.url, disabledAt: webhooks.disabledAt })
      .from(webhooks)
      .where(eq(webhooks.appId, appId))
      .for('update');
    const [row] = await tx
      .insert(webhooks)
      .values({ appId, url: input.url, events: input.events, secretSealed: input.secretSealed })
      .onConflictDoUpdate({
        target: webhooks.appId,
        // A new URL is a new receiver: its breaker starts afresh (and a disabled webhook is resumed).
        set: {
          url: input.url,
          events: input.events,
          updatedAt: sql`now()`,
          failuresInARow: sql`case when ${webhooks.url} = excluded.url then ${webhooks.failuresInARow} else 0 end`,
          pausedUntil: sql`case when ${webhooks.url} = excluded.url then ${webhooks.pausedUntil} end`,
          failingSince: sql`case when ${webhooks.url} = excluded.url then ${webhooks.failingSince} end`,
          disabledAt: sql`case when ${webhooks.url} = excluded.url then ${webhooks.disabledAt} end`,
        },
      })
      .returning();
    if (!row) throw new Error('webhook upsert returned nothing');
    // Events held back while it was disabled go out to the new URL.
    if (before?.disabledAt && row.disabledAt === null) await releaseHeldWebhookMessages(tx, appId);
    if (audit) {
      await recordAudit(
        tx,
        { appId },
        {
          ...audit,
          action: 'webhook.updated',
          target: { type: 'webhook', id: appId },
          details: { url: row.url, events: row.events, created: before === undefined },
        },
      );
    }
    return row;
  });
}

/**
 * The owner resumes deliveries: the breaker is reset (no pause, no streak, not disabled) and the
 * events held back go on the queue at the relay's next pass. Null when the app has no webhook.
 */
export async function resumeWebhook(db: Database, appId: string): Promise<Webhook | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhooks)
      .set({ failuresInARow: 0, pausedUntil: null, failingSince: null, disabledAt: null, updatedAt: sql`now()` })
      .where(eq(webhooks.appId, appId))
      .returning();
    if (!row) return null;
    await releaseHeldWebhookMessages(tx, appId);
    return row;
  });
}

export async function pendingWebhookMessageIds(db: Database, appId: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: webhookMessages.id })
    .from(webhookMessages)
    .where(and(eq(webhookMessages.appId, appId), eq(webhookMessages.status, 'pending')))
    .orderBy(webhookMessages.createdAt)
    .limit(limit);
  return rows.map((row) => row.id);
}

/** Pending events of the app, queued again by the relay's next pass (their old jobs were skipped). */
async function releaseHeldWebhookMessages(db: Pick<Database, 'update'>, appId: string): Promise<void> {
  await db
    .update(webhookMessages)
    .set({ queuedAt: null })
    .where(and(eq(webhookMessages.appId, appId), eq(webhookMessages.status, 'pending')));
}

export async function setWebhookSecret(
  db: Database,
  appId: string,
  secretSealed: string,
  audit: AuditContext | null,
): Promise<Webhook | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhooks)
      .set({ secretSealed, updatedAt: sql`now()` })
      .where(eq(webhooks.appId, appId))
      .returning();
    if (row && audit) {
      await recordAudit(
        tx,
        { appId },
        { ...audit, action: 'webhook.secret_rotated', target: { type: 'webhook', id: appId } },
      );
    }
    return row ?? null;
  });
}

export async function deleteWebhook(db: Database, appId: string, audit: AuditContext | null): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .delete(webhooks)
      .where(eq(webhooks.appId, appId))
      .returning({ appId: webhooks.appId, url: webhooks.url });
    if (!row) return false;
    if (audit) {
      await recordAudit(
        tx,
        { appId },
        { ...audit, action: 'webhook.deleted', target: { type: 'webhook', id: appId }, details: { url: row.url } },
      );
    }
    return true;
  });
}

export interface WebhookAttemptRow {
  id: string;
  messageId: string;
  type: WebhookEventType;
  url: string;
  status: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
  createdAt: Date;
  messageStatus: WebhookMessageStatus;
}

export async function listWebhookAttempts(db: Database, appId: string, limit: number): Promise<WebhookAttemptRow[]> {
  return db
    .select({
      id: webhookAttempts.id,
      messageId: webhookAttempts.messageId,
      type: webhookMessages.type,
      url: webhookAttempts.url,
      status: webhookAttempts.status,
      durationMs: webhookAttempts.durationMs,
      response: webhookAttempts.response,
      error: webhookAttempts.error,
      createdAt: webhookAttempts.createdAt,
      messageStatus: webhookMessages.status,
    })
    .from(webhookAttempts)
    .innerJoin(webhookMessages, eq(webhookMessages.id, webhookAttempts.messageId))
    .where(eq(webhookAttempts.appId, appId))
    .orderBy(desc(webhookAttempts.createdAt), desc(webhookAttempts.id))
    .limit(limit);
}

/**
 * "Send again": makes the event of one of the app's attempts pending again, with its attempts
 * budget renewed by a new job. Resolves to the event's id (its `webhook-id`), or null when the
 * attempt is not the app's.
 */
export async function resendWebhookAttempt(db: Database, appId: string, attemptId: string): Promise<string | null> {
  const [row] = await db
    .update(webhookMessages)
    .set({ status: 'pending', queuedAt: sql`now()` })
    .where(
      and(
        eq(webhookMessages.appId, appId),
        sql`${webhookMessages.id} = (select ${webhookAttempts.messageId} from ${webhookAttempts}
          where ${webhookAttempts.id} = ${attemptId} and ${webhookAttempts.appId} = ${appId})`,
      ),
    )
    .returning({ id: webhookMessages.id });
  return row?.id ?? null;
}

// --- The worker's side: delivery bookkeeping, for message ids taken from our own queue. ---

/**
 * Pending events whose job may be missing: never queued, or queued more than `staleSeconds` ago.
 * Marks them queued now and returns them; rows another worker is claiming are skipped, so two
 * relays never queue the same event in one pass. Apps take turns: each app's oldest events first,
 * at most `perApp` of one app per pass, so one app's backlog never holds another's new event back.
 */
export async function claimWebhookMessagesToQueue(
  db: Database,
  staleSeconds: number,
  limit: number,
  perApp = limit,
): Promise<{ id: string; neverQueued: boolean }[]> {
  const sql = db.$client;
  // A disabled webhook's events wait, pending, until the owner resumes it (or changes the URL).
  const claimable = sql`status = 'pending'
    and (queued_at is null or queued_at < now() - make_interval(secs => ${staleSeconds}))
    and not exists (select 1 from webhooks w
      where w.app_id = webhook_messages.app_id and w.disabled_at is not null)`;
  return sql<{ id: string; neverQueued: boolean }[]>`
    update webhook_messages m set queued_at = now()
    from (
      select id, queued_at from webhook_messages
      where ${claimable} and id in (
        select id from (
          select id, created_at, row_number() over (partition by app_id order by created_at) as turn
          from webhook_messages
          where ${claimable}
        ) ranked
        where turn <= ${perApp}
        order by turn, created_at
        limit ${limit}
      )
      for update skip locked
    ) c
    where m.id = c.id
    returning m.id, c.queued_at is null as "neverQueued"`;
}

export interface WebhookDelivery {
  message: WebhookMessage;
  webhook: Webhook | null;
  /** The app's account is suspended: nothing of it is delivered (docs/operations.md). */
  ownerSuspended: boolean;
}

export async function loadWebhookDelivery(db: Database, messageId: string): Promise<WebhookDelivery | null> {
  const [row] = await db
    .select({
      message: webhookMessages,
      webhook: webhooks,
      ownerSuspended: sql<boolean>`exists (select 1 from ${apps} a join ${users} u on u.id = a.user_id
        where a.id = ${webhookMessages.appId} and u.suspended_at is not null)`,
    })
    .from(webhookMessages)
    .leftJoin(webhooks, eq(webhooks.appId, webhookMessages.appId))
    .where(eq(webhookMessages.id, messageId))
    .limit(1);
  return row ?? null;
}

export async function findWebhookNotification(
  db: Database,
  message: Pick<WebhookMessage, 'appId' | 'subjectId'>,
): Promise<Notification | null> {
  const [row] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.appId, message.appId), eq(notifications.id, message.subjectId)))
    .limit(1);
  return row ?? null;
}

export async function fixWebhookBody(db: Database, messageId: string, body: string): Promise<string> {
  const [row] = await db
    .update(webhookMessages)
    .set({ body: sql`coalesce(${webhookMessages.body}, ${body})` })
    .where(eq(webhookMessages.id, messageId))
    .returning({ body: webhookMessages.body });
  return row?.body ?? body;
}

export interface AttemptRecord {
  url: string;
  status: number | null;
  durationMs: number;
  response: string | null;
  error: string | null;
}

export async function recordWebhookAttempt(
  db: Database,
  message: Pick<WebhookMessage, 'id' | 'appId'>,
  attempt: AttemptRecord,
  outcome: WebhookMessageStatus,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({ messageId: message.id, appId: message.appId, ...attempt });
    await tx
      .update(webhookMessages)
      .set({
        status: outcome,
        attempts: sql`${webhookMessages.attempts} + 1`,
        deliveredAt: outcome === 'delivered' ? sql`now()` : webhookMessages.deliveredAt,
      })
      .where(eq(webhookMessages.id, message.id));
  });
}

export async function dropWebhookMessage(db: Database, messageId: string): Promise<void> {
  await db.update(webhookMessages).set({ status: 'failed' }).where(eq(webhookMessages.id, messageId));
}

// --- The circuit breaker, shared by every worker process through the webhook's row. ---

export interface WebhookFailure {
  /** Short, never the receiver's answer: "HTTP 500", "timeout", "connection refused". */
  reason: string;
  status: number | null;
  pausedUntil: Date | null;
  /** A streak older than this disables the webhook. */
  disableAfterMs: number;
}

export interface WebhookBreakerState {
  failuresInARow: number;
  pausedUntil: Date | null;
  disabledAt: Date | null;
  justDisabled: boolean;
}

/**
 * Counts one failed attempt to `url` (nothing when the webhook's URL has changed since: the new
 * receiver starts afresh), keeps the longest pause any worker set, and disables the webhook when
 * the streak began more than `disableAfterMs` ago.
 */
export async function recordWebhookFailure(
  db: Database,
  appId: string,
  url: string,
  failure: WebhookFailure,
): Promise<WebhookBreakerState | null> {
  const sql = db.$client;
  const pausedUntil = failure.pausedUntil?.toISOString() ?? null;
  const [row] = await sql<
    { failuresInARow: number; pausedUntil: Date | null; disabledAt: Date | null; justDisabled: boolean }[]
  >`
    update webhooks w set
      failures_in_a_row = w.failures_in_a_row + 1,
      paused_until = greatest(w.paused_until, ${pausedUntil}::timestamptz),
      failing_since = coalesce(w.failing_since, now()),
      last_error_reason = ${failure.reason},
      last_error_status = ${failure.status},
      last_error_at = now(),
      disabled_at = coalesce(w.disabled_at, case
        when w.failing_since <= now() - make_interval(secs => ${failure.disableAfterMs / 1000}) then now() end)
    from (select app_id, disabled_at from webhooks where app_id = ${appId} and url = ${url} for update) was
    where w.app_id = was.app_id
    returning w.failures_in_a_row as "failuresInARow", w.paused_until as "pausedUntil",
      w.disabled_at as "disabledAt", (was.disabled_at is null and w.disabled_at is not null) as "justDisabled"`;
  return row ?? null;
}

/** A delivered attempt ends the streak and the pause (the last error stays, for the record). */
export async function recordWebhookRecovery(db: Database, appId: string, url: string): Promise<void> {
  await db
    .update(webhooks)
    .set({ failuresInARow: 0, pausedUntil: null, failingSince: null })
    .where(and(eq(webhooks.appId, appId), eq(webhooks.url, url), sql`${webhooks.failuresInARow} > 0`));
}

export async function findWebhookOwner(
  db: Database,
  appId: string,
): Promise<{ email: string; appName: string; language: 'ja' | 'en' } | null> {
  const sql = db.$client;
  const [row] = await sql<{ email: string; appName: string; language: 'ja' | 'en' }[]>`
    select u.email, a.name as "appName", u.language from apps a join users u on u.id = a.user_id
    where a.id = ${appId}`;
  return row ?? null;
}
