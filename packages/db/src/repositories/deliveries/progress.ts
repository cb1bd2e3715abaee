import type { Database } from '../../client.js';
import { type AnsweredBatch, type AnswerKind, expireSubscriptions } from './answers.js';
import { type ChunkKey, inTransaction, type Sql } from './shared.js';

export interface ChunkAnswers {
  chunk: ChunkKey & { appId: string };
  batch: AnsweredBatch;
}

/**
 * Records answered pushes of open chunks, so a re-run after a crash does not send them again: one
 * INSERT of a progress row for every chunk in `answers` (one round trip for all the chunks a worker
 * sends at once). One flag per entry: false when that chunk is already counted and nothing of it
 * was written. Appended rather than merged into the chunk's row, which would rewrite its growing
 * arrays (docs/performance.md); a row left behind by a race with the completing run is never read.
 */
export async function recordProgress(db: Database, answers: readonly ChunkAnswers[]): Promise<boolean[]> {
  const flags = answers.map(() => true);
  const positions = answers.flatMap(({ batch }, index) => (batch.ids.length > 0 ? [index] : []));
  const entries = positions.map((index) => answers[index] as ChunkAnswers);
  if (entries.length === 0) return flags;
  const update = async (sql: Sql) => {
    const firsts: number[] = [];
    const lasts: number[] = [];
    const ids: string[] = [];
    const kinds: AnswerKind[] = [];
    for (const { batch } of entries) {
      firsts.push(ids.length + 1);
      for (let index = 0; index < batch.ids.length; index++) {
        ids.push(batch.ids[index] as string);
        kinds.push(batch.kinds[index] as AnswerKind);
      }
      lasts.push(ids.length);
    }
    const rows = await sql<{ ordinal: number }[]>`
      with chunks as (
        select * from unnest(${entries.map(({ chunk }) => chunk.notificationId)}::uuid[],
          ${entries.map(({ chunk }) => chunk.firstSubscriptionId)}::uuid[],
          ${entries.map(({ chunk }) => chunk.attempt)}::int[],
          ${entries.map(({ batch }) => batch.retryAfterMs)}::int[], ${firsts}::int[], ${lasts}::int[]) with ordinality
          as k(notification_id, first_subscription_id, attempt, retry_after_ms, first_answer, last_answer, position)
      ), written as (
        insert into notification_chunk_answers
          (notification_id, app_id, notification_created_at, first_subscription_id, attempt, subscription_ids, kinds,
            retry_after_ms)
        select k.notification_id, c.app_id, c.notification_created_at, k.first_subscription_id, k.attempt,
          (${ids}::uuid[])[k.first_answer:k.last_answer],
          (${kinds}::text[])[k.first_answer:k.last_answer], k.retry_after_ms
        from chunks k
        join notification_chunks c on c.notification_id = k.notification_id
          and c.first_subscription_id = k.first_subscription_id and c.attempt = k.attempt and c.completed_at is null
        returning notification_id, first_subscription_id, attempt
      )
      select (k.position - 1)::int as ordinal from chunks k join written w using (notification_id, first_subscription_id, attempt)`;
    const open = new Set(rows.map((row) => row.ordinal));
    for (const [ordinal, { chunk, batch }] of entries.entries()) {
      if (open.has(ordinal)) await expireSubscriptions(sql, chunk.appId, batch);
    }
    return open;
  };
  const expiring = entries.some(({ batch }) => batch.kinds.includes('expired'));
  const open = expiring
    ? ((await db.$client.begin((transaction) => update(inTransaction(transaction)))) as Set<number>)
    : await update(db.$client);
  for (const [ordinal, index] of positions.entries()) flags[index] = open.has(ordinal);
  return flags;
}

/**
 * Records a batch of answered pushes of one chunk still open (see {@link recordProgress}). False
 * when the chunk is already counted (another run finished it).
 */
export async function recordChunkProgress(
  db: Database,
  chunk: ChunkKey & { appId: string },
  batch: AnsweredBatch,
): Promise<boolean> {
  const [open] = await recordProgress(db, [{ chunk, batch }]);
  return open ?? true;
}
