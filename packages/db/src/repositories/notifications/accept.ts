import { and, eq, fillPlaceholders, inArray, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Database, Transaction } from '../../client.js';
import {
  type NotificationPayload,
  type NotificationStatus,
  type NotificationTargetKind,
  notifications,
  type SegmentExpression,
  type SubscriptionStatus,
  type SubscriptionTags,
  subscriptions,
  type Urgency,
} from '../../schema.js';
import { countAudience, type StoredAudience } from '../audiences.js';
import type { LocalGroup } from '../deliveries/local-groups.js';
import { compileSegment, segmentSql } from '../segments.js';
import { currentUsageMonth } from '../usage.js';

/** How long an `Idempotency-Key` replays its first 202. */
const IDEMPOTENCY_WINDOW = sql`interval '24 hours'`;
const dialect = new PgDialect();

export type NotificationTarget =
  | { kind: 'all' }
  | { kind: 'endpoint' | 'batch'; subscriptionIds: readonly string[] }
  | { kind: 'uids'; uids: readonly string[] }
  | { kind: 'tags'; tags: SubscriptionTags }
  | { kind: 'segment'; segment: SegmentExpression };

export function storedAudience(
  target: NotificationTarget,
): StoredAudience & { subscriptionIds: string[] | null; targetUids: string[] | null } {
  return {
    targetKind: target.kind satisfies NotificationTargetKind,
    subscriptionIds: 'subscriptionIds' in target ? [...new Set(target.subscriptionIds)] : null,
    targetUids: target.kind === 'uids' ? [...new Set(target.uids)] : null,
    targetTags: target.kind === 'tags' ? target.tags : null,
    targetSegment: target.kind === 'segment' ? target.segment : null,
  };
}

/**
 * Targets of a send at the moment it starts: the fixed ids (`endpoint`, `batch`) or the active
 * subscriptions of the audience (`all`, `uids`, `tags`), counted in the caller's transaction.
 */
export async function countTargets(
  tx: Transaction,
  appId: string,
  audience: StoredAudience & { subscriptionIds: readonly string[] | null },
): Promise<number> {
  return audience.subscriptionIds ? audience.subscriptionIds.length : countAudience(tx, appId, audience);
}

export interface NewNotification {
  payload: NotificationPayload;
  ttl: number;
  urgency: Urgency;
  topic: string | null;
  target: NotificationTarget;
  idempotencyKey: string | null;
  /** A scheduled send: nothing is counted or reserved now; the worker's scheduler starts it then. */
  sendAt: Date | null;
  /**
   * A `localTime` send (`HH:MM`): its groups, counted now (their targets add up to the send's), are
   * stored with it, and the worker starts each when it is due.
   */
  localTime?: { time: string; groups: readonly LocalGroup[] } | null;
  /** At most this many pushes in any minute. */
  throttlePerMinute?: number | null;
}

/** What every 202 body of a send carries: the accept statement writes `targets` into the stored copy. */
export interface AcceptedAnswer {
  notification: { targets: number };
}

export type AcceptResult<R> =
  | { kind: 'accepted'; notification: AcceptedNotification; response: R }
  | { kind: 'replay'; response: R }
  | { kind: 'limit' };

export interface AcceptedNotification {
  id: string;
  status: NotificationStatus;
  targets: number;
}

export interface EndpointMatch {
  endpoint: string;
  id: string;
  status: SubscriptionStatus;
}

export async function findSubscriptionsByEndpoints(
  db: Database,
  appId: string,
  endpoints: readonly string[],
): Promise<EndpointMatch[]> {
  if (endpoints.length === 0) return [];
  return db
    .select({ endpoint: subscriptions.endpoint, id: subscriptions.id, status: subscriptions.status })
    .from(subscriptions)
    .where(and(eq(subscriptions.appId, appId), inArray(subscriptions.endpoint, [...endpoints])));
}

/** The answer first given to `idempotencyKey` by this app within the last 24 h, if any. */
export async function findIdempotentResponse(
  db: Database,
  appId: string,
  idempotencyKey: string,
): Promise<Record<string, unknown> | null> {
  const [row] = await db
    .select({ response: notifications.acceptedResponse })
    .from(notifications)
    .where(
      and(
        eq(notifications.appId, appId),
        eq(notifications.idempotencyKey, idempotencyKey),
        sql`${notifications.createdAt} >= now() - ${IDEMPOTENCY_WINDOW}`,
      ),
    )
    .limit(1);
  return row?.response ?? null;
}

async function releaseStaleIdempotencyKey(db: Database, appId: string, idempotencyKey: string): Promise<void> {
  await db
    .update(notifications)
    .set({ idempotencyKey: null })
    .where(
      and(
        eq(notifications.appId, appId),
        eq(notifications.idempotencyKey, idempotencyKey),
        sql`${notifications.createdAt} < now() - ${IDEMPOTENCY_WINDOW}`,
      ),
    );
}

function isIdempotencyConflict(error: unknown): boolean {
  for (let cause = error; typeof cause === 'object' && cause !== null; cause = (cause as { cause?: unknown }).cause) {
    const { code, constraint_name: constraint } = cause as { code?: unknown; constraint_name?: unknown };
    // One key per partition of the notifications (migration 0044): `<partition>_app_idempotency_key`.
    if (code === '23505') return typeof constraint === 'string' && constraint.endsWith('_app_idempotency_key');
  }
  return false;
}

interface AcceptRow {
  /** True when the key was answered within the window: nothing was counted, reserved or inserted. */
  replayed: boolean;
  replay: Record<string, unknown> | null;
  /** Null when nothing was inserted: a replay, or the month's limit refused the reservation. */
  id: string | null;
  status: NotificationStatus | null;
  targets: number | null;
}

/**
 * The accept as one statement (one round trip, its own implicit transaction):
 *
 * - `fresh`: the answer already given to the idempotency key within 24 h; when there is one, every
 *   step below selects nothing and the statement returns it.
 * - `counted`: the targets, counted now for `all`/`uids`/`tags`, fixed for `endpoint`/`batch`, 0
 *   for a scheduled send (counted and reserved when it starts).
 * - `reserved`: the same upsert as `reserveMonthlySends`, so concurrent accepts never take the
 *   month past its limit. No row returned: refused.
 * - `inserted`: deliberately without ON CONFLICT: a concurrent request with the same key makes the
 *   insert fail (23505) and with it the whole statement, so PostgreSQL undoes the reservation; the
 *   caller then replays the winner's answer.
 *
 * Every value is a placeholder, so each shape's text is rendered once and prepared once per connection.
 */
function acceptStatement({ keyed, scheduled, local, kind, limited }: AcceptShape, segment: SQL | null): SQL {
  const value = (name: keyof AcceptValues) => sql.placeholder(name);
  const notReplay = keyed ? sql`not exists (select 1 from fresh)` : sql`true`;
  const fresh = keyed
    ? sql`fresh as (
          select accepted_response as response from notifications
          where app_id = ${value('appId')}::uuid and idempotency_key = ${value('key')}::text
            and created_at >= now() - ${IDEMPOTENCY_WINDOW}
          limit 1
        ),`
    : sql``;
  // The count is behind a function (migration 0012): the statement's own plan then does not depend
  // on whose app it is, so PostgreSQL keeps its generic plan. A `uids` or `tags` count is planned for
  // the actual app on each call; `all` has one cached plan, an index-only scan (migration 0025).
  const targets = scheduled
    ? sql`0`
    : local
      ? sql`${value('localTargets')}::int`
      : kind === 'endpoint' || kind === 'batch'
        ? sql`cardinality(${value('subscriptionIds')}::uuid[])`
        : kind === 'all'
          ? sql`count_active_subscribers(${value('appId')}::uuid)`
          : segment !== null
            ? sql`(select count(*)::int from subscriptions s
              where s.app_id = ${value('appId')}::uuid and s.status = 'active' and ${segment})`
            : sql`count_active_targets(${value('appId')}::uuid, ${value('targetUids')}::text[], ${value('targetTags')}::jsonb)`;
  const withinLimit = (sends: SQL) => (limited ? sql`and ${sends} <= ${value('sendsPerMonth')}::bigint` : sql``);
  const done = scheduled ? sql`null::timestamptz` : sql`case when targets = 0 then now() end`;
  const status = scheduled
    ? sql`'scheduled'`
    : sql`case when targets = 0 then 'completed' else ${local ? sql`'scheduled'` : sql`'queued'`} end`;
  // A `localTime` send's groups: one row per instant (see `LocalGroup`).
  const groups = local
    ? sql`local_groups as (
        insert into notification_local_groups (notification_id, app_id, notification_created_at, due_at, zones,
          unzoned, targets)
        select inserted.id, inserted.app_id, inserted.created_at, g.due_at, g.zones, g.unzoned, g.targets
        from inserted, jsonb_to_recordset(${value('localGroups')}::jsonb)
          as g(due_at timestamptz, zones text[], unzoned boolean, targets int)
        where inserted.status = 'scheduled'
      ),`
    : sql``;
  return sql`
    with ${fresh}
    counted as (select ${targets} as targets where ${notReplay}),
    reserved as (
      insert into monthly_usage (user_id, month, sends)
      select ${value('ownerId')}::uuid, ${currentUsageMonth}, targets from counted
      where targets > 0 ${withinLimit(sql`targets`)}
      on conflict (user_id, month) do update set sends = monthly_usage.sends + excluded.sends
      where true ${withinLimit(sql`monthly_usage.sends + excluded.sends`)}
      returning 1
    ),
    inserted as (
      insert into notifications (id, app_id, payload, ttl, urgency, topic, target_kind, subscription_ids,
        target_uids, target_tags, target_segment, send_at, local_time, throttle_per_minute, status, targets,
        idempotency_key, accepted_response, fanned_out_at, completed_at)
      select ${value('id')}::uuid, ${value('appId')}::uuid, ${value('payload')}::jsonb,
        ${value('ttl')}::int, ${value('urgency')}::text, ${value('topic')}::text, ${value('targetKind')}::text,
        ${value('subscriptionIds')}::uuid[], ${value('targetUids')}::text[], ${value('targetTags')}::jsonb,
        ${value('targetSegment')}::jsonb, ${value('sendAt')}::timestamptz, ${value('localTime')}::text,
        ${value('throttlePerMinute')}::int, ${status}, targets, ${value('key')}::text,
        ${keyed ? sql`jsonb_set(${value('template')}::jsonb, '{notification,targets}', to_jsonb(targets))` : sql`null::jsonb`},
        ${done}, ${done}
      from counted
      where targets = 0 or exists (select 1 from reserved)
      returning id, app_id, created_at, status, targets
    ),
    ${groups}
    -- The webhook outbox (see webhook-outbox.ts): a send without targets is finished here, so its
    -- notification.completed event is written by this same statement.
    finished_event as (
      insert into webhook_messages (app_id, type, subject_id, dedupe_key)
      select ${value('appId')}::uuid, 'notification.completed', inserted.id, 'notification.completed:' || inserted.id
      from inserted join webhooks w on w.app_id = ${value('appId')}::uuid
      where inserted.status = 'completed' and 'notification.completed' = any(w.events)
      on conflict (dedupe_key) do nothing
    )
    select ${keyed ? sql`exists (select 1 from fresh)` : sql`false`} as replayed,
      ${keyed ? sql`(select response from fresh)` : sql`null::jsonb`} as replay,
      inserted.id, inserted.status, inserted.targets
    from (select 1) as one left join inserted on true`;
}

interface AcceptShape {
  keyed: boolean;
  scheduled: boolean;
  local: boolean;
  kind: NotificationTargetKind;
  limited: boolean;
}

type AcceptValues = {
  ownerId: string;
  appId: string;
  id: string;
  key: string | null;
  payload: string;
  ttl: number;
  urgency: string;
  topic: string | null;
  targetKind: string;
  subscriptionIds: string[] | null;
  targetUids: string[] | null;
  targetTags: string | null;
  targetSegment: string | null;
  /** ISO text: drizzle makes postgres.js pass timestamps through as strings, both ways. */
  sendAt: string | null;
  localTime: string | null;
  localTargets: number;
  /** JSON of the groups: `[{due_at, zones, unzoned, targets}]`. */
  localGroups: string | null;
  throttlePerMinute: number | null;
  template: string;
  sendsPerMonth: number | null;
};

const acceptTexts = new Map<string, { text: string; params: unknown[] }>();

function acceptQuery(
  ownerId: string,
  appId: string,
  id: string,
  input: NewNotification,
  sendsPerMonth: number | null,
  template: AcceptedAnswer,
): { text: string; params: unknown[]; prepare: boolean } {
  const audience = storedAudience(input.target);
  const shape: AcceptShape = {
    keyed: input.idempotencyKey !== null,
    scheduled: input.sendAt !== null,
    local: (input.localTime ?? null) !== null,
    kind: audience.targetKind,
    limited: sendsPerMonth !== null,
  };
  const shapeKey = `${shape.keyed}:${shape.scheduled}:${shape.local}:${shape.kind}:${shape.limited}`;
  // A segment counted now is part of the text, so that text has unbounded shapes: rendered for this
  // request and sent unprepared (planned for its app and values), never kept.
  const segment =
    audience.targetSegment !== null && !shape.scheduled && !shape.local
      ? segmentSql(compileSegment(audience.targetSegment))
      : null;
  let rendered = segment === null ? acceptTexts.get(shapeKey) : undefined;
  if (!rendered) {
    const { sql: text, params } = dialect.sqlToQuery(acceptStatement(shape, segment));
    rendered = { text, params };
    if (segment === null) acceptTexts.set(shapeKey, rendered);
  }
  const values: AcceptValues = {
    ownerId,
    appId,
    id,
    key: input.idempotencyKey,
    payload: JSON.stringify(input.payload),
    ttl: input.ttl,
    urgency: input.urgency,
    topic: input.topic,
    targetKind: audience.targetKind,
    subscriptionIds: audience.subscriptionIds,
    targetUids: audience.targetUids,
    targetTags: audience.targetTags === null ? null : JSON.stringify(audience.targetTags),
    targetSegment: audience.targetSegment === null ? null : JSON.stringify(audience.targetSegment),
    sendAt: input.sendAt?.toISOString() ?? null,
    localTime: input.localTime?.time ?? null,
    localTargets: input.localTime?.groups.reduce((sum, group) => sum + group.targets, 0) ?? 0,
    localGroups: input.localTime
      ? JSON.stringify(
          input.localTime.groups.map((group) => ({
            due_at: group.dueAt.toISOString(),
            zones: group.zones,
            unzoned: group.unzoned,
            targets: group.targets,
          })),
        )
      : null,
    throttlePerMinute: input.throttlePerMinute ?? null,
    template: JSON.stringify(template),
    sendsPerMonth,
  };
  return { text: rendered.text, params: fillPlaceholders(rendered.params, values), prepare: segment === null };
}

/**
 * Accepts a notification in one statement (see `acceptStatement`). Nothing is queued here: the
 * caller queues the fan-out after this commits, and the reconciler covers a crash in between. A
 * scheduled one (`sendAt`) is only stored: targets are counted and reserved when it starts.
 *
 * `respond` builds the 202 body; it must put `targets` at `notification.targets`, where the
 * statement writes the counted value into the stored copy (the count is only known in SQL).
 */
export async function acceptNotification<R extends Record<string, unknown> & AcceptedAnswer>(
  db: Database,
  ownerId: string,
  appId: string,
  input: NewNotification,
  sendsPerMonth: number | null,
  respond: (accepted: { id: string; targets: number }) => R,
): Promise<AcceptResult<R>> {
  const { idempotencyKey } = input;
  // Time-ordered (a version 7 UUID, RFC 9562), like the column's default: new index entries go to
  // the right edge instead of a page each (docs/architecture.md).
  const id = timeOrderedUuid();
  const { text, params, prepare } = acceptQuery(ownerId, appId, id, input, sendsPerMonth, respond({ id, targets: 0 }));
  for (let attempt = 1; ; attempt++) {
    try {
      // Prepared: the text has a handful of shapes, every value is a parameter.
      const [row] = await db.$client.unsafe<(AcceptRow & postgres.Row)[]>(
        text,
        params as postgres.ParameterOrJSON<never>[],
        { prepare },
      );
      if (!row) throw new Error('the accept statement returned no row');
      if (row.replayed) {
        if (!row.replay) throw new Error('idempotency key found, but no earlier answer was stored');
        // The stored body is the one `respond` built for the first request with this key.
        return { kind: 'replay', response: row.replay as R };
      }
      if (row.id === null || row.status === null || row.targets === null) return { kind: 'limit' };
      const notification = { id: row.id, status: row.status, targets: row.targets };
      return { kind: 'accepted', notification, response: respond({ id, targets: row.targets }) };
    } catch (error) {
      if (idempotencyKey === null || !isIdempotencyConflict(error) || attempt >= 3) throw error;
      const response = await findIdempotentResponse(db, appId, idempotencyKey);
      if (response) return { kind: 'replay', response: response as R };
      await releaseStaleIdempotencyKey(db, appId, idempotencyKey);
    }
  }
}
