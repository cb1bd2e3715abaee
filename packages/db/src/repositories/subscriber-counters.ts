import type postgres from 'postgres';
import type { Database } from '../client.js';

type Sql = Database['$client'];

/** SQLSTATE raised by `subscriber_limit_exceeded()` (migration 0010) inside a subscribe statement. */
export const SUBSCRIBER_LIMIT_SQLSTATE = 'WPSL1';

export const isSubscriberLimitError = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === SUBSCRIBER_LIMIT_SQLSTATE;

/**
 * A CTE body that takes one slot of `ownerId`'s count for each row of `source` (a CTE name that
 * yields at most one row): no row comes back when the owner already has `maxActive` (null: no
 * limit). The count is kept in 16 stripes (migration 0014, `take_subscriber_slot`), so one owner's
 * subscribes hold one stripe's lock each from here to their commit, not all one row's.
 */
export const reserveSlot = (
  sql: Sql,
  ownerId: string,
  maxActive: number | null,
  source: postgres.PendingQuery<postgres.Row[]>,
) => sql`
  select 1 as active from ${source} where take_subscriber_slot(${ownerId}::uuid, ${maxActive}::int)`;

/**
 * A SELECT that gives back `released` slots (an integer expression) to the owner of `appId`, in one
 * stripe of its count (`release_subscriber_slots`, migration 0014); nothing when it is zero. It must
 * be the main query of the statement that took the subscriptions out of `active` (or run in the same
 * transaction): a SELECT in a CTE runs only if something reads it.
 */
export const releaseSlots = (sql: Sql, appId: string, released: postgres.PendingQuery<postgres.Row[]>) => sql`
  select release_subscriber_slots((select user_id from apps where id = ${appId}::uuid), (${released})::int) as released`;

export interface SubscriberCountDrift {
  ownerId: string;
  counter: number | null;
  real: number;
}

/**
 * Compares every owner's count (the sum of its stripes) with a real count of active subscriptions,
 * and repairs those that differ. A candidate from the first comparison (one scan, no locks, possibly
 * racing subscribes) is checked again under all its stripes' locks, taken in stripe order as every
 * writer that holds more than one takes them: every statement that moves the count holds the lock of
 * the stripe it moved until it commits, so a count taken after acquiring them all (READ COMMITTED: a
 * fresh snapshot per statement) is exact, and subscribes of that owner wait a moment rather than
 * being miscounted. Returns the repaired drifts.
 */
export async function repairSubscriberCounters(db: Database): Promise<SubscriberCountDrift[]> {
  const sql = db.$client;
  const candidates = await sql<{ ownerId: string }[]>`
    with real as (
      select a.user_id, count(*)::int as n from subscriptions s join apps a on a.id = s.app_id
      where s.status = 'active' group by a.user_id
    ), counted as (
      select user_id, sum(active)::int as n from subscriber_counters group by user_id
    )
    select coalesce(c.user_id, r.user_id) as "ownerId"
    from counted c full join real r on r.user_id = c.user_id
    where coalesce(c.n, 0) <> coalesce(r.n, 0)`;
  const repaired: SubscriberCountDrift[] = [];
  for (const { ownerId } of candidates) {
    const drift = (await sql.begin(async (tx) => {
      // Its stripes first (those missing, in stripe order), so that every count it has is locked below.
      await tx`insert into subscriber_counters (user_id, stripe)
        select u.id, g from users u, generate_series(0, 15) g where u.id = ${ownerId}
        on conflict (user_id, stripe) do nothing`;
      const [locked] = await tx<{ active: number | null }[]>`
        select sum(active)::int as active from (
          select active from subscriber_counters where user_id = ${ownerId} order by stripe for update
        ) s`;
      if (locked?.active === null || locked === undefined) return null; // the owner was deleted meanwhile
      const counter = locked.active;
      const [row] = await tx<{ n: number }[]>`
        select count(*)::int as n from subscriptions s join apps a on a.id = s.app_id
        where a.user_id = ${ownerId} and s.status = 'active'`;
      const real = row?.n ?? 0;
      if (real === counter) return null;
      await tx`select set_subscriber_count(${ownerId}, ${real})`;
      return { ownerId, counter, real };
    })) as SubscriberCountDrift | null;
    if (drift) repaired.push(drift);
  }
  return repaired;
}
