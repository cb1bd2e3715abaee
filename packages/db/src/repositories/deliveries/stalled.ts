import { and, asc, sql } from 'drizzle-orm';
import type { Database } from '../../client.js';
import { notifications } from '../../schema.js';
import { isUnfinished } from './shared.js';

/**
 * Unfinished notifications without progress for `staleSeconds`: candidates for re-queueing. An A/B
 * test waiting for its winner with its sample all counted is not stalled: nothing can move before
 * the winner pass chooses (and queues it).
 */
export async function findStalledNotifications(db: Database, staleSeconds: number, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: notifications.id })
    .from(notifications)
    .where(
      and(
        isUnfinished,
        sql`${notifications.updatedAt} < now() - make_interval(secs => ${staleSeconds})`,
        sql`not (${notifications.winner} is null and coalesce(${notifications.winnerAt} > now(), false) and not exists (
          select 1 from notification_chunks c where c.notification_id = ${notifications.id} and c.completed_at is null))`,
      ),
    )
    .orderBy(asc(notifications.updatedAt))
    .limit(limit);
  return rows.map((row) => row.id);
}
