import type postgres from 'postgres';
import type { Database } from '../client.js';

type Sql = Database['$client'];

/** SQLSTATE raised by `subscriber_limit_exceeded()` (migration 0010) inside a subscribe statement. */
export const SUBSCRIBER_LIMIT_SQLSTATE = 'WPSL1';

export const isSubscriberLimitError = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === SUBSCRIBER_LIMIT_SQLSTATE;

/**
 * A CTE body that takes one slot of `ownerId`'s counter for each row of `source` (a CTE name that
 * yields at most one row), in one conditional increment that both checks and reserves: no row
 * comes back when the owner already has `maxActive` (null: no limit). The counter's row lock is
 * held only from here to the commit of the statement.
 */
export const reserveSlot = (
  sql: Sql,
  ownerId: string,
  maxActive: number | null,
  source: postgres.PendingQuery<postgres.Row[]>,
) => sql`
  insert into subscriber_counters (user_id, active)
  select ${ownerId}::uuid, 1 from ${source} where ${maxActive}::int is null or ${maxActive}::int > 0
  on conflict (user_id) do update set active = subscriber_counters.active + 1
  where ${maxActive}::int is null or subscriber_counters.active < ${maxActive}::int
  returning active`;

/**
 * A statement body that gives back `released` slots (an integer expression) to the owner of
 * `appId`; nothing when it is zero. Run in the same statement or transaction as the change that
 * took the subscriptions out of `active`.
 */
export const releaseSlots = (sql: Sql, appId: string, released: postgres.PendingQuery<postgres.Row[]>) => sql`
  update subscriber_counters c set active = c.active - r.n
  from (select (${released})::int as n) r
  where c.user_id = (select user_id from apps where id = ${appId}::uuid) and r.n > 0`;

export interface SubscriberCountDrift {
  ownerId: string;
  /** What the counter said (0 when the owner had no counter row yet; the repair creates it). */
  counter: number | null;
  /** Active subscriptions across the owner's apps. */
  real: number;
}

/**
 * Compares every owner's counter with a real count of active subscriptions, and repairs those that
 * differ. A candidate from the first comparison (one scan, no locks, possibly racing subscribes) is
 * checked again under its counter's row lock: every statement that moves the counter holds that lock
 * until it commits, so a count taken after acquiring it (READ COMMITTED: a fresh snapshot per
 * statement) is exact, and subscribes of that owner wait a moment rather than being miscounted.
 * Returns the repaired drifts.
 */
export async function repairSubscriberCounters(db: Database): Promise<SubscriberCountDrift[]> {
  const sql = db.$client;
  const candidates = await sql<{ ownerId: string }[]>`
    with real as (
      select a.user_id, count(*)::int as n from subscriptions s join apps a on a.id = s.app_id
      where s.status = 'active' group by a.user_id
    )
    select coalesce(c.user_id, r.user_id) as "ownerId"
    from subscriber_counters c full join real r on r.user_id = c.user_id
    where coalesce(c.active, 0) <> coalesce(r.n, 0)`;
  const repaired: SubscriberCountDrift[] = [];
  for (const { ownerId } of candidates) {
    const drift = (await sql.begin(async (tx) => {
      await tx`insert into subscriber_counters (user_id) select id from users where id = ${ownerId}
        on conflict (user_id) do nothing`;
      const [locked] = await tx<{ active: number }[]>`
        select active from subscriber_counters where user_id = ${ownerId} for update`;
      if (!locked) return null; // the owner was deleted meanwhile
      const [row] = await tx<{ n: number }[]>`
        select count(*)::int as n from subscriptions s join apps a on a.id = s.app_id
        where a.user_id = ${ownerId} and s.status = 'active'`;
      const real = row?.n ?? 0;
      if (real === locked.active) return null;
      await tx`update subscriber_counters set active = ${real} where user_id = ${ownerId}`;
      return { ownerId, counter: locked.active, real };
    })) as SubscriberCountDrift | null;
    if (drift) repaired.push(drift);
  }
  return repaired;
}
