import type postgres from 'postgres';

/**
 * An owner's subscriber counter (the sum of its stripes; null without any) beside a real count of
 * its active subscriptions: tests of the counter assert the two are equal.
 */
export async function subscriberCounted(
  sql: postgres.Sql,
  ownerId: string,
): Promise<{ counter: number | null; real: number }> {
  const [row] = await sql<{ counter: number | null; real: number }[]>`
    select (select sum(active)::int from subscriber_counters where user_id = ${ownerId}) as counter,
      (select count(*)::int from subscriptions s join apps a on a.id = s.app_id
        where a.user_id = ${ownerId} and s.status = 'active') as real`;
  return row ?? { counter: null, real: -1 };
}

/**
 * An app's active-subscriber count (the sum of its stripes, migration 0032; null without any) beside
 * a real count of its active subscriptions.
 */
export async function appSubscriberCounted(
  sql: postgres.Sql,
  appId: string,
): Promise<{ counter: number | null; real: number }> {
  const [row] = await sql<{ counter: number | null; real: number }[]>`
    select (select sum(active)::int from app_subscriber_counts where app_id = ${appId}) as counter,
      (select count(*)::int from subscriptions where app_id = ${appId} and status = 'active') as real`;
  return row ?? { counter: null, real: -1 };
}
