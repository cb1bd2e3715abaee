import type postgres from 'postgres';

/** The tables whose rows carry their notification's `created_at` (the partition key), children first. */
const CHILDREN = [
  'notification_chunks',
  'notification_chunk_answers',
  'notification_local_groups',
  'notification_events',
];

/**
 * Gives a notification another creation time, as if it had been accepted then, for tests of what
 * depends on its age (retention, the month's usage, the idempotency window). The notifications and
 * the rows beside them are partitioned by that time (migration 0044), so an UPDATE cannot move
 * them: the notification and its chunks, answers, local-time groups and events are copied with the
 * new time, in one transaction, and the old rows deleted.
 */
export async function setNotificationCreatedAt(sql: postgres.Sql, id: string, at: Date | string): Promise<void> {
  await sql.begin(async (tx) => {
    const [row] = await tx<{ at: string; key: string | null }[]>`
      select created_at::text as at, idempotency_key as key from notifications where id = ${id}`;
    if (!row) throw new Error(`no notification ${id}`);
    const to = at instanceof Date ? at.toISOString() : at;
    const copy = (table: string, column: string, also = '') =>
      tx.unsafe(
        `insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t)
          || jsonb_build_object('${column}', $2::timestamptz${also}))).*
        from ${table} t where t.${column === 'created_at' ? 'id' : 'notification_id'} = $1 and t.${column} = $3::timestamptz`,
        [id, to, row.at],
      );
    // The copy first (the children's keys need it), without the idempotency key its old row holds.
    await copy('notifications', 'created_at', `, 'idempotency_key', null`);
    for (const table of CHILDREN) await copy(table, 'notification_created_at');
    for (const table of [...CHILDREN].reverse()) {
      await tx.unsafe(`delete from ${table} where notification_id = $1 and notification_created_at = $2::timestamptz`, [
        id,
        row.at,
      ]);
    }
    await tx`delete from notifications where id = ${id} and created_at = ${row.at}::timestamptz`;
    await tx`update notifications set idempotency_key = ${row.key} where id = ${id}`;
  });
}
