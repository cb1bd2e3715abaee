import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Database } from '../client.js';
import { apps, notifications, users } from '../schema.js';
import { countTargets } from './notifications/index.js';
import { reserveMonthlySends } from './usage.js';
import { recordNotificationFinished } from './webhook-outbox.js';

/** What starting one scheduled send did. */
export interface StartedSend {
  id: string;
  /** `queued`: the fan-out must be queued; `completed`: no targets; `failed`: over the month's limit. */
  status: 'queued' | 'completed' | 'failed';
  targets: number;
}

/**
 * Starts the oldest due scheduled send, if any, in one transaction: claims the row with
 * `FOR UPDATE SKIP LOCKED` (another worker claiming at the same moment takes the next row or none,
 * and the status moves off `scheduled` before the lock is released, so no send starts twice),
 * resolves the audience, reserves the owner's monthly usage and moves it to `queued`. Over the
 * month's limit it ends `failed` with `MONTHLY_LIMIT_EXCEEDED`, nothing reserved, nothing sent.
 * `sendsPerMonthFor` maps the owner's plan (read now, not at acceptance) to its monthly limit.
 */
export async function startDueScheduledSend(
  db: Database,
  sendsPerMonthFor: (plan: string) => number | null,
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
        ownerId: apps.userId,
        plan: users.plan,
      })
      .from(notifications)
      .innerJoin(apps, eq(apps.id, notifications.appId))
      .innerJoin(users, eq(users.id, apps.userId))
      .where(and(eq(notifications.status, 'scheduled'), lte(notifications.sendAt, sql`now()`)))
      .orderBy(asc(notifications.sendAt))
      .limit(1)
      .for('update', { of: notifications, skipLocked: true });
    if (!due) return null;

    const targets = await countTargets(tx, due.appId, due);
    if (targets > 0 && !(await reserveMonthlySends(tx, due.ownerId, targets, sendsPerMonthFor(due.plan)))) {
      await tx
        .update(notifications)
        .set({
          status: 'failed',
          errorCode: 'MONTHLY_LIMIT_EXCEEDED',
          startedAt: sql`now()`,
          fannedOutAt: sql`now()`,
          completedAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(eq(notifications.id, due.id));
      await recordNotificationFinished(tx, due.id);
      return { id: due.id, status: 'failed', targets: 0 };
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
