import { and, asc, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import {
  notifications,
  subscriptions,
  type WebhookEventType,
  webhookAttempts,
  webhookMessages,
  webhooks,
} from '../schema.js';
import type { NotificationSummary } from './notifications.js';

export type Webhook = typeof webhooks.$inferSelect;
export type WebhookMessage = typeof webhookMessages.$inferSelect;

/** The app's webhook; `appId` must already be checked to belong to the caller. */
export async function findWebhook(db: Database, appId: string): Promise<Webhook | null> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.appId, appId)).limit(1);
  return row ?? null;
}

/** Creates or replaces the app's webhook. `secretSealed` is kept when null (an update of url/events). */
export async function putWebhook(
  db: Database,
  appId: string,
  input: { url: string; events: WebhookEventType[]; secretSealed: string },
): Promise<Webhook> {
  const [row] = await db
    .insert(webhooks)
    .values({ appId, url: input.url, events: input.events, secretSealed: input.secretSealed })
    .onConflictDoUpdate({
      target: webhooks.appId,
      set: { url: input.url, events: input.events, updatedAt: sql`now()` },
    })
    .returning();
  if (!row) throw new Error('webhook upsert returned nothing');
  return row;
}

export async function setWebhookSecret(db: Database, appId: string, secretSealed: string): Promise<boolean> {
  const rows = await db
    .update(webhooks)
    .set({ secretSealed, updatedAt: sql`now()` })
    .where(eq(webhooks.appId, appId))
    .returning({ appId: webhooks.appId });
  return rows.length > 0;
}

export async function deleteWebhook(db: Database, appId: string): Promise<boolean> {
  const rows = await db.delete(webhooks).where(eq(webhooks.appId, appId)).returning({ appId: webhooks.appId });
  return rows.length > 0;
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
  messageStatus: WebhookMessage['status'];
}

/** The app's most recent delivery attempts, newest first. */
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

/** Makes a message of `appId` pending again ("send again"); false when it is not the app's. */
export async function resendWebhookMessage(db: Database, appId: string, messageId: string): Promise<boolean> {
  const rows = await db
    .update(webhookMessages)
    .set({ status: 'pending', queuedAt: sql`now()` })
    .where(and(eq(webhookMessages.appId, appId), eq(webhookMessages.id, messageId)))
    .returning({ id: webhookMessages.id });
  return rows.length > 0;
}

// --- The worker's side: delivery bookkeeping, for message ids taken from our own queue. ---

/**
 * Pending messages whose job may be missing: never queued, or queued more than `staleSeconds`
 * ago. Marks them queued now (so the next sweep looks at others first) and returns their ids.
 */
export async function claimUnqueuedWebhookMessages(
  db: Database,
  staleSeconds: number,
  limit: number,
): Promise<{ id: string; neverQueued: boolean }[]> {
  const candidates = await db
    .select({ id: webhookMessages.id, queuedAt: webhookMessages.queuedAt })
    .from(webhookMessages)
    .where(
      and(
        eq(webhookMessages.status, 'pending'),
        or(
          isNull(webhookMessages.queuedAt),
          lt(webhookMessages.queuedAt, sql`now() - make_interval(secs => ${staleSeconds})`),
        ),
      ),
    )
    .orderBy(asc(webhookMessages.createdAt))
    .limit(limit);
  if (candidates.length === 0) return [];
  await db
    .update(webhookMessages)
    .set({ queuedAt: sql`now()` })
    .where(
      sql`${webhookMessages.id} in (${sql.join(
        candidates.map((row) => sql`${row.id}::uuid`),
        sql`, `,
      )})`,
    );
  return candidates.map((row) => ({ id: row.id, neverQueued: row.queuedAt === null }));
}

export interface WebhookDelivery {
  message: WebhookMessage;
  webhook: Webhook | null;
}

export async function loadWebhookDelivery(db: Database, messageId: string): Promise<WebhookDelivery | null> {
  const [row] = await db
    .select({ message: webhookMessages, webhook: webhooks })
    .from(webhookMessages)
    .leftJoin(webhooks, eq(webhooks.appId, webhookMessages.appId))
    .where(eq(webhookMessages.id, messageId))
    .limit(1);
  return row ?? null;
}

/** What the event reports, as of now: the notification, or the subscriber. Null when it is gone. */
export async function webhookSubject(
  db: Database,
  message: Pick<WebhookMessage, 'appId' | 'type' | 'subjectId'>,
): Promise<{ notification: NotificationSummary } | { subscriber: { id: string; endpoint: string } } | null> {
  if (message.type === 'subscription.expired') {
    const [row] = await db
      .select({ id: subscriptions.id, endpoint: subscriptions.endpoint })
      .from(subscriptions)
      .where(and(eq(subscriptions.appId, message.appId), eq(subscriptions.id, message.subjectId)))
      .limit(1);
    return row ? { subscriber: row } : null;
  }
  const [row] = await db
    .select()
    .from(notifications)
    .where(and(eq(notifications.appId, message.appId), eq(notifications.id, message.subjectId)))
    .limit(1);
  return row ? { notification: row } : null;
}

/** Fixes the body of a message at its first attempt, so every retry sends the same bytes. */
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

/** Records one attempt and the message's new state in one transaction. */
export async function recordWebhookAttempt(
  db: Database,
  message: Pick<WebhookMessage, 'id' | 'appId'>,
  attempt: AttemptRecord,
  outcome: 'delivered' | 'failed' | 'pending',
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

/** A message that cannot be delivered at all (webhook removed, subject gone). */
export async function dropWebhookMessage(db: Database, messageId: string): Promise<void> {
  await db.update(webhookMessages).set({ status: 'failed' }).where(eq(webhookMessages.id, messageId));
}
