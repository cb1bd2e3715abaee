import type { Database } from '../client.js';
import { isSubscriberLimitError } from './subscriber-counters.js';
import { type SubscriptionKeys, type UpsertOptions, type UpsertResult, upsertSubscription } from './subscriptions.js';
import { unprepared } from './unprepared.js';

export interface SubscribeRequest {
  ownerId: string;
  appId: string;
  keys: SubscriptionKeys;
  maxActive: number | null;
  audience?: UpsertOptions['audience'];
  vapidKeyVersion?: number;
  /**
   * The per-app cap's admission check (`UpsertOptions.admitNew`): asked only for an endpoint the app
   * does not have. Such subscribes that arrive together are looked up by one statement
   * (`findKnownEndpoints`), and the admitted ones stored by the batch insert like the others.
   */
  admitNew?: UpsertOptions['admitNew'];
}

export interface SubscribeBatcher {
  /** Stores the subscription as `upsertSubscription` does, with the others that arrive together. */
  subscribe(request: SubscribeRequest): Promise<UpsertResult>;
}

/** Subscriptions stored by one statement at most: bounds the statement's locks and its run time. */
const MAX_BATCH = 64;

/** PostgreSQL's SQLSTATE for a deadlock: the transaction chosen as its victim was rolled back. */
const DEADLOCK = '40P01';

interface Pending {
  request: SubscribeRequest;
  resolve(result: UpsertResult): void;
  reject(error: unknown): void;
}

interface Lookup {
  request: SubscribeRequest & { admitNew: NonNullable<SubscribeRequest['admitNew']> };
  resolve(result: UpsertResult): void;
  reject(error: unknown): void;
}

interface BatchRow {
  i: number;
  id: string;
  created: boolean;
}

/**
 * New subscriptions that arrive together, stored by one statement: under load a subscribe's cost is
 * mostly its statement's (round trip, executor set-up, commit and WAL flush), not its row's. One
 * statement inserts all their rows (in key order, so two such statements cannot deadlock on the
 * same endpoints) and takes each owner's slots with one conditional increment.
 *
 * A batch goes out at the end of the event loop's turn; while one runs, the subscribes that arrive
 * gather for the next (at most `MAX_BATCH`), so an idle API stores a subscribe at once and a busy
 * one sends fewer, fuller statements. Apps locked by a deletion are skipped (`skip locked`).
 *
 * The answers are those of `upsertSubscription`, one by one: whatever the batch cannot answer
 * exactly (an endpoint already stored, twice in one batch, slots it could not take, a lost
 * deadlock) goes through it alone.
 */
export function createSubscribeBatcher(db: Database): SubscribeBatcher {
  const sql = db.$client;
  let pending: Pending[] = [];
  /** Whether a batch statement is running: the subscribes arriving meanwhile gather for the next one. */
  let running = false;

  const single = (request: SubscribeRequest, knownId?: string) =>
    upsertSubscription(db, request.ownerId, request.appId, request.keys, request.maxActive, {
      ...(request.audience === undefined ? {} : { audience: request.audience }),
      ...(request.vapidKeyVersion === undefined ? {} : { vapidKeyVersion: request.vapidKeyVersion }),
      ...(request.admitNew === undefined ? {} : { admitNew: request.admitNew }),
      ...(knownId === undefined ? {} : { knownId }),
    });

  const settle = (item: Pending, knownId?: string) => single(item.request, knownId).then(item.resolve, item.reject);

  const answer = (items: Pending[], outcome: { rows: BatchRow[] } | { error: unknown }) => {
    if ('error' in outcome) {
      const code = (outcome.error as { code?: unknown } | null)?.code;
      const retry = isSubscriberLimitError(outcome.error) || code === DEADLOCK;
      for (const item of items) {
        if (retry) void settle(item);
        else item.reject(outcome.error);
      }
      return;
    }
    const found = new Map(outcome.rows.map((row) => [row.i, row]));
    items.forEach((item, index) => {
      const row = found.get(index);
      if (row?.created) item.resolve({ id: row.id, created: true });
      // Stored already (a re-subscribe: its update, with the id found), or neither stored nor found
      // (the app is being or was deleted, or a concurrent subscribe of the endpoint committed after
      // this statement began): alone, as if there were no batch.
      else void settle(item, row?.id);
    });
  };

  const flush = () => {
    if (running || pending.length === 0) return;
    const batch = pending.slice(0, MAX_BATCH);
    pending = pending.slice(batch.length);
    // The second subscribe of an endpoint in one batch waits for the next one: then it is a re-subscribe.
    const first = new Map<string, Pending>();
    const later: Pending[] = [];
    for (const item of batch) {
      const key = `${item.request.appId} ${item.request.keys.endpoint}`;
      if (first.has(key)) later.push(item);
      else first.set(key, item);
    }
    pending = [...later, ...pending];
    const items = [...first.values()];
    if (items.length === 1) {
      const [only] = items;
      if (only) void settle(only);
      flush();
      return;
    }
    running = true;
    insertAll(
      sql,
      items.map((item) => item.request),
    ).then(
      (rows) => {
        running = false;
        flush();
        answer(items, { rows });
      },
      (error: unknown) => {
        running = false;
        flush();
        answer(items, { error });
      },
    );
  };

  const enqueue = (request: SubscribeRequest) =>
    new Promise<UpsertResult>((resolve, reject) => {
      if (pending.length === 0 && !running) setImmediate(flush);
      pending.push({ request, resolve, reject });
    });

  // With the per-app cap on, a subscribe must know whether its endpoint is new before it asks the
  // cap (a re-subscribe takes nothing from it). The look-ups of the subscribes that arrive together
  // are one statement, gathered the same way as the inserts; then each new endpoint asks the cap
  // (one Redis command; those of a batch go out together), and the admitted ones join the insert
  // batch. Without this, each capped subscribe was a look-up and an insert committed alone: the
  // cap cost four fifths of the rate under load.
  let lookups: Lookup[] = [];
  let looking = false;
  const uncapped = ({ admitNew: _cap, ...request }: SubscribeRequest): SubscribeRequest => request;

  const afterLookup = async (item: Lookup, knownId: string | undefined) => {
    if (knownId !== undefined) return single(uncapped(item.request), knownId);
    if (!(await item.request.admitNew())) return 'rate_limited' as const;
    return enqueue(uncapped(item.request));
  };

  const flushLookups = () => {
    if (looking || lookups.length === 0) return;
    const batch = lookups.slice(0, MAX_BATCH);
    lookups = lookups.slice(batch.length);
    const [only] = batch;
    if (batch.length === 1 && only) {
      single(only.request).then(only.resolve, only.reject);
      flushLookups();
      return;
    }
    looking = true;
    findKnownEndpoints(
      sql,
      batch.map((item) => item.request),
    ).then(
      (known) => {
        looking = false;
        flushLookups();
        batch.forEach((item, index) => {
          afterLookup(item, known.get(index)).then(item.resolve, item.reject);
        });
      },
      (error: unknown) => {
        looking = false;
        flushLookups();
        for (const item of batch) item.reject(error);
      },
    );
  };

  return {
    subscribe(request) {
      const { admitNew } = request;
      if (admitNew === undefined) return enqueue(request);
      return new Promise<UpsertResult>((resolve, reject) => {
        if (lookups.length === 0 && !looking) setImmediate(flushLookups);
        lookups.push({ request: { ...request, admitNew }, resolve, reject });
      });
    },
  };
}

/**
 * The subscriptions the apps already have among `requests`' endpoints, by the request's index. A
 * probe of the unique index per request whatever the statistics: the LIMIT keeps the planner from
 * a hash join over the whole table, which the json's default estimate of 100 rows can bring on a
 * never-analyzed table.
 */
export async function findKnownEndpoints(
  sql: Database['$client'],
  requests: Pick<SubscribeRequest, 'appId' | 'keys'>[],
): Promise<Map<number, string>> {
  const input = JSON.stringify(
    requests.map((request, i) => ({ i, app_id: request.appId, endpoint: request.keys.endpoint })),
  );
  const rows = await unprepared<{ i: number; id: string }[]>(sql)`
    select i.i, s.id from json_to_recordset(${input}::json) as i(i int, app_id uuid, endpoint text)
    join lateral (
      select x.id from subscriptions x where x.app_id = i.app_id and x.endpoint = i.endpoint limit 1
    ) s on true`;
  return new Map(rows.map((row) => [row.i, row.id]));
}

/**
 * One statement for the whole batch: each new endpoint inserted (for an app that still exists, the
 * app locked as `upsertSubscription` locks it), each owner's slots taken for its inserted rows, or
 * `subscriber_limit_exceeded()` raised so that nothing is stored; `i` is the request's index, with
 * `created` false for an endpoint the app already had.
 */
async function insertAll(sql: Database['$client'], requests: SubscribeRequest[]): Promise<BatchRow[]> {
  const input = JSON.stringify(
    requests.map((request, i) => ({
      i,
      app_id: request.appId,
      owner_id: request.ownerId,
      max_active: request.maxActive,
      endpoint: request.keys.endpoint,
      p256dh: request.keys.p256dh,
      auth: request.keys.auth,
      uid: request.audience?.uid ?? null,
      tags: request.audience?.tags ?? null,
      language: request.audience?.language ?? null,
      time_zone: request.audience?.timeZone ?? null,
      key_version: request.vapidKeyVersion ?? null,
    })),
  );
  return unprepared<BatchRow[]>(sql)`
    with input as (
      select * from json_to_recordset(${input}::json) as t(
        i int, app_id uuid, owner_id uuid, max_active int, endpoint text, p256dh text, auth text,
        uid text, tags jsonb, language text, time_zone text, key_version int)
    ), app as (
      select id, vapid_key_version from apps where id in (select app_id from input) order by id
      for key share skip locked
    ), inserted as (
      insert into subscriptions (app_id, endpoint, p256dh, auth, uid, tags, language, time_zone, vapid_key_version)
      select i.app_id, i.endpoint, i.p256dh, i.auth, i.uid, coalesce(i.tags, '{}'::jsonb), i.language, i.time_zone,
        coalesce(i.key_version, a.vapid_key_version)
      from input i join app a on a.id = i.app_id
      order by i.app_id, i.endpoint
      on conflict (app_id, endpoint) do nothing
      returning id, app_id, endpoint
    ), owners as (
      select i.owner_id, i.max_active, count(*)::int as n
      from inserted s join input i on i.app_id = s.app_id and i.endpoint = s.endpoint
      group by i.owner_id, i.max_active
    ), reserved as (
      select bool_and(take_subscriber_slots(owner_id, max_active, n)) as ok from owners
    )
    select i.i, s.id, true as created
    from inserted s join input i on i.app_id = s.app_id and i.endpoint = s.endpoint
    where (select case when ok is false then subscriber_limit_exceeded() end from reserved) is null
    union all
    select i.i, x.id, false
    from input i join subscriptions x on x.app_id = i.app_id and x.endpoint = i.endpoint
    where not exists (select 1 from inserted s where s.app_id = i.app_id and s.endpoint = i.endpoint)`;
}
