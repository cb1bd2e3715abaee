import { and, asc, eq, isNull, lte, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { apps, type NotificationPayload, notifications, type PushFormat, users } from '../schema.js';
import { countTargets } from './notifications/index.js';
import { reserveMonthlySends } from './usage.js';
import { recordNotificationFinished } from './webhook-outbox.js';

export interface StartedSend {
  id: string;
  /**
   * `queued`: the fan-out must be queued; `completed`: no targets; `failed`: over the month's limit,
   * or the payload no longer fits the app's push format (`errorCode`).
   */
  status: 'queued' | 'completed' | 'failed';
  targets: number;
  errorCode?: 'MONTHLY_LIMIT_EXCEEDED' | 'PAYLOAD_TOO_LARGE';
}

/**
 * Starts the oldest due scheduled send, if any, in one transaction: claims the row with
 * `FOR UPDATE SKIP LOCKED` (the status moves off `scheduled` before the lock is released, so no
 * send starts twice), resolves the audience, reserves the owner's monthly usage (by the plan as it
 * is now) and moves it to `queued`. `payloadFits` checks the payload against the app's push format
 * as it is now: an app switched to declarative since acceptance delivers a bigger payload.
 */
export async function startDueScheduledSend(
  db: Database,
  sendsPerMonthFor: (plan: string) => number | null,
  payloadFits: (payload: NotificationPayload, pushFormat: PushFormat) => boolean = () => true,
): Promise<StartedSend | null> {
  return db.transaction(async (tx) => {
    const [due] = await tx
      .select({
        id: notifications.id,
        appId: notifications.appId,
        targetKind: notifications.targetKind,
        subscriptionIds: notifications.subscriptionIds,
        targetUids: notifications.targetUids,
        targetTags: notifications.targetTags,
        targetSegment: notifications.targetSegment,
        ownerId: apps.userId,
        plan: users.plan,
        payload: notifications.payload,
        pushFormat: apps.pushFormat,
      })
      .from(notifications)
      .innerJoin(apps, eq(apps.id, notifications.appId))
      .innerJoin(users, eq(users.id, apps.userId))
      // A suspended account's scheduled sends were canceled with the suspension; one accepted as it
      // was being suspended waits here while the suspension lasts.
      .where(
        and(eq(notifications.status, 'scheduled'), lte(notifications.sendAt, sql`now()`), isNull(users.suspendedAt)),
      )
      .orderBy(asc(notifications.sendAt))
      .limit(1)
      .for('update', { of: notifications, skipLocked: true });
    if (!due) return null;

    const refuse = async (errorCode: NonNullable<StartedSend['errorCode']>): Promise<StartedSend> => {
      await tx
        .update(notifications)
        .set({
          status: 'failed',
          errorCode,
          startedAt: sql`now()`,
          fannedOutAt: sql`now()`,
          completedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(eq(notifications.id, due.id));
      await recordNotificationFinished(tx, due.id);
      return { id: due.id, status: 'failed', targets: 0, errorCode };
    };
    if (!payloadFits(due.payload, due.pushFormat)) return refuse('PAYLOAD_TOO_LARGE');

    const targets = await countTargets(tx, due.appId, due);
    if (targets > 0 && !(await reserveMonthlySends(tx, due.ownerId, targets, sendsPerMonthFor(due.plan)))) {
      return refuse('MONTHLY_LIMIT_EXCEEDED');
    }
    const status = targets === 0 ? 'completed' : 'queued';
    const done = targets === 0 ? sql`now()` : null;
    await tx
      .update(notifications)
      .set({ status, targets, startedAt: sql`now()`, fannedOutAt: done, completedAt: done, updatedAt: sql`now()` })
      .where(eq(notifications.id, due.id));
    if (status === 'completed') await recordNotificationFinished(tx, due.id);
    return { id: due.id, status, targets };
  });
}
