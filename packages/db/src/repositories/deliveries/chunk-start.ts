import type { Database } from '../../client.js';
import type { PushFormat } from '../../schema.js';
import type { Notification } from '../notifications/index.js';
import type { ChunkKey } from './shared.js';

export interface DeliveryContext {
  notification: Pick<Notification, 'id' | 'appId' | 'payload' | 'ttl' | 'urgency' | 'topic'>;
  app: {
    id: string;
    vapidPublicKey: string;
    vapidPrivateKeySealed: string;
    /** The app's current key version; subscriptions made with an earlier one name their `vapidKeyVersion`. */
    vapidKeyVersion: number;
    pushFormat: PushFormat;
    defaultUrl: string | null;
  };
}

export interface DeliverableSubscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  /** The version of the app's VAPID key the subscription was made with: its pushes are signed with it. */
  vapidKeyVersion: number;
  refusals: number;
  /** Chooses the translation it receives, if the send has any. */
  language: string | null;
  /** The A/B variant it receives (its letter); absent when the send has no variants. */
  variant?: string;
}

export type ChunkStart =
  | { state: 'gone' }
  /** The chunk's outcome is already counted (or the chunk no longer exists). */
  | { state: 'settled' }
  /**
   * The send was stopped (its account is suspended, or it ended `failed` / `canceled` by suspension):
   * nothing more of it is pushed, even after the suspension is lifted.
   */
  | { state: 'stopped' }
  | {
      state: 'open';
      delivery: DeliveryContext;
      /** Active targets not yet answered, by an earlier run included. */
      subscriptions: DeliverableSubscription[];
      /** Active targets not yet answered that the app's frequency cap holds back: not sent to. */
      skipped: number;
      /**
       * Targets not yet answered; those neither among `subscriptions` nor skipped expired or were
       * removed since the plan.
       */
      unanswered: number;
    };

interface ChunkStartRow {
  chunk_found: boolean;
  completed: boolean;
  stopped: boolean;
  answered: number;
  app_id: string;
  payload: Notification['payload'];
  ttl: number;
  urgency: Notification['urgency'];
  topic: string | null;
  vapid_public_key: string;
  vapid_private_key_sealed: string;
  push_format: PushFormat;
  default_url: string | null;
  vapid_key_version: number;
  /** A chunk of an A/B test: its letters, and its ids in their order. */
  variants: string | null;
  chunk_ids: string[] | null;
}

/**
 * Loads a chunk for sending: its still-active targets minus those a crashed earlier run recorded
 * as answered. Raw postgres.js rather than drizzle: this runs per chunk on the hot path, and
 * drizzle's row mapping of 500 subscriptions showed in the worker's CPU profile.
 */
export async function startChunk(
  db: Database,
  chunk: ChunkKey & { appId: string },
  ids: readonly string[],
): Promise<ChunkStart> {
  const sql = db.$client;
  const [[row], subscriptionRows] = await Promise.all([
    sql<ChunkStartRow[]>`
      select c.notification_id is not null as chunk_found, c.completed_at is not null as completed,
        (select count(*) from (select unnest(c.answered_subscription_ids) union select unnest(p.subscription_ids)
          from notification_chunk_answers p where p.notification_id = n.id
            and p.first_subscription_id = ${chunk.firstSubscriptionId} and p.attempt = ${chunk.attempt}) answered)::int
          as answered,
        n.app_id, n.payload, n.ttl, n.urgency, n.topic, a.vapid_public_key, a.vapid_private_key_sealed,
        a.push_format, a.default_url, a.vapid_key_version, c.variants,
        (u.suspended_at is not null or n.status not in ('queued', 'sending')) as stopped,
        case when c.variants is null then null else c.subscription_ids end as chunk_ids
      from notifications n
      join apps a on a.id = n.app_id
      join users u on u.id = a.user_id
      left join notification_chunks c on c.notification_id = n.id
        and c.first_subscription_id = ${chunk.firstSubscriptionId} and c.attempt = ${chunk.attempt}
      where n.id = ${chunk.notificationId}`,
    ids.length === 0
      ? Promise.resolve([])
      : sql<(DeliverableSubscription & { capped: boolean })[]>`
      select s.id, s.endpoint, s.p256dh, s.auth, s.vapid_key_version as "vapidKeyVersion", s.refusals, s.language,
        -- Held back by the cap when its max-th newest push is within its hours.
        coalesce(s.recent_pushes[(a.frequency_cap->>'max')::int]
          > now() - make_interval(hours => (a.frequency_cap->>'hours')::int), false) as capped
      from subscriptions s
      join apps a on a.id = ${chunk.appId}
      where s.app_id = ${chunk.appId} and s.status = 'active' and s.id = any(${ids as string[]}::uuid[])
        and s.id <> all(coalesce((select c.answered_subscription_ids from notification_chunks c
          where c.notification_id = ${chunk.notificationId} and c.first_subscription_id = ${chunk.firstSubscriptionId}
            and c.attempt = ${chunk.attempt}), '{}'::uuid[]))
        and s.id not in (select unnest(p.subscription_ids) from notification_chunk_answers p
          where p.notification_id = ${chunk.notificationId} and p.first_subscription_id = ${chunk.firstSubscriptionId}
            and p.attempt = ${chunk.attempt})`,
  ]);
  if (!row) return { state: 'gone' };
  if (!row.chunk_found || row.completed) return { state: 'settled' };
  if (row.stopped) return { state: 'stopped' };
  return {
    state: 'open',
    delivery: {
      notification: {
        id: chunk.notificationId,
        appId: row.app_id,
        payload: row.payload,
        ttl: row.ttl,
        urgency: row.urgency,
        topic: row.topic,
      },
      app: {
        id: row.app_id,
        vapidPublicKey: row.vapid_public_key,
        vapidPrivateKeySealed: row.vapid_private_key_sealed,
        pushFormat: row.push_format,
        defaultUrl: row.default_url,
        vapidKeyVersion: row.vapid_key_version,
      },
    },
    subscriptions: withVariants(
      subscriptionRows.filter((subscription) => !subscription.capped),
      row.chunk_ids,
      row.variants,
    ),
    skipped: subscriptionRows.filter((subscription) => subscription.capped).length,
    unanswered: ids.length - row.answered,
  };
}

/** Each subscription with the letter the plan drew for it; untouched without variants (the hot path). */
function withVariants(
  rows: readonly DeliverableSubscription[],
  ids: readonly string[] | null,
  letters: string | null,
): DeliverableSubscription[] {
  if (ids === null || letters === null) return [...rows];
  const letterOf = new Map(ids.map((id, index) => [id, letters[index]]));
  for (const row of rows) {
    const letter = letterOf.get(row.id);
    if (letter !== undefined) row.variant = letter;
  }
  return [...rows];
}
