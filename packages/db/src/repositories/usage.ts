import { and, eq, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../client.js';
import { monthlyUsage } from '../schema.js';

/**
 * The first day of the current calendar month in UTC, by the database clock at transaction start:
 * the same clock that stamps `notifications.created_at`, so a notification and its reserved sends
 * always land in the same month.
 */
export const currentUsageMonth = sql<string>`(date_trunc('month', now() at time zone 'UTC'))::date`;

/**
 * Adds `sends` to the owner's usage of the current month unless that would pass `limit` (`null`:
 * unlimited). One statement, atomic under concurrency: the conflicting row is locked and its
 * `where` is re-checked against the committed value, so simultaneous reservations never overshoot.
 * Call it in the transaction that inserts the notification, so a refused or rolled-back
 * notification reserves nothing. Returns false when the limit refuses the reservation.
 */
export async function reserveMonthlySends(
  tx: Transaction,
  userId: string,
  sends: number,
  limit: number | null,
): Promise<boolean> {
  if (limit !== null && sends > limit) return false;
  const reserved = await tx
    .insert(monthlyUsage)
    .values({ userId, month: currentUsageMonth, sends })
    .onConflictDoUpdate({
      target: [monthlyUsage.userId, monthlyUsage.month],
      set: { sends: sql`${monthlyUsage.sends} + excluded.sends` },
      ...(limit === null ? {} : { setWhere: sql`${monthlyUsage.sends} + excluded.sends <= ${limit}` }),
    })
    .returning({ sends: monthlyUsage.sends });
  return reserved.length > 0;
}

export async function monthlySends(db: Database, userId: string): Promise<number> {
  const [row] = await db
    .select({ sends: monthlyUsage.sends })
    .from(monthlyUsage)
    .where(and(eq(monthlyUsage.userId, userId), eq(monthlyUsage.month, currentUsageMonth)));
  return row?.sends ?? 0;
}
