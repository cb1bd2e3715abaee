import { and, asc, sql } from 'drizzle-orm';
import type { Database } from '../../client.js';
import { notifications } from '../../schema.js';
import { isUnfinished } from './shared.js';

/** Unfinished notifications without progress for `staleSeconds`: candidates for re-queueing. */
export async function findStalledNotifications(db: Database, staleSeconds: number, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(isUnfinished, sql`${notifications.updatedAt} < now() - make_interval(secs => ${staleSeconds})`))
    .orderBy(asc(notifications.updatedAt))
    .limit(limit);
  return rows.map((row) => row.id);
}
