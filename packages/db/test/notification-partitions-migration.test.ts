// Migration 0044 moves an existing database's notifications, chunks, answers and local-time groups
// into month partitions without copying a row: each old table becomes the partition
// `<table>_legacy`, covering every notification created before the start of the month after next,
// and the months begin there. A database is migrated to 0043, given rows, then migrated on, two ways:
// `runMigrations` (which prepares the tables outside any transaction first, so that 0044 attaches
// the very indexes it built) and drizzle's migrator alone (0044 does everything itself).

import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import t from 'tap';
import { migrationsFolder, prepareNotificationPartitions, runMigrations } from '../src/migrate.js';
import { adminUrl, emptyDatabase, migrationsWhere } from './migration-fixtures.js';

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
t.teardown(() => admin.end({ timeout: 5 }));

/** The committed migrations up to 0043, the last one before these partitions. */
const before0044 = migrationsWhere(t, (entry) => entry.tag < '0044');

async function databaseAt0043(t: Tap.Test) {
  const database = await emptyDatabase(t, admin);
  await migrate(drizzle(database.sql), { migrationsFolder: before0044 });
  return database;
}

const SUBSCRIPTIONS = 20;
const PARTITIONED = ['notifications', 'notification_chunks', 'notification_chunk_answers', 'notification_local_groups'];

/**
 * An app; a finished send to 20 subscriptions with its chunk, an answer and a `shown` of each; a
 * scheduled `localTime` send with two groups; and a send with an idempotency key: the old tables' rows.
 */
async function seed(sql: postgres.Sql) {
  const [user] = await sql<{ id: string }[]>`insert into users (email) values ('legacy@example.com') returning id`;
  const [app] = await sql<{ id: string }[]>`
    insert into apps (user_id, name, vapid_public_key, vapid_private_key_sealed)
    values (${user?.id ?? ''}, 'legacy', 'public', 'sealed') returning id`;
  const appId = app?.id ?? '';
  const subscriptions = (
    await sql<{ id: string }[]>`insert into subscriptions (app_id, endpoint, p256dh, auth)
      select ${appId}, 'https://push.example.com/' || g, 'p256dh', 'auth' from generate_series(1, ${SUBSCRIPTIONS}::int) g
      returning id`
  )
    .map((row) => row.id)
    .sort();
  const notification = async (status: string, key: string | null = null) => {
    const [row] = await sql<{ id: string }[]>`
      insert into notifications (app_id, payload, ttl, urgency, target_kind, targets, status, sent, idempotency_key)
      values (${appId}, ${JSON.stringify({ title: 'Old', body: 'b' })}::jsonb, 60, 'normal', 'all', ${SUBSCRIPTIONS},
        ${status}, ${status === 'completed' ? SUBSCRIPTIONS : 0}, ${key}) returning id`;
    return row?.id ?? '';
  };
  const finished = await notification('completed');
  await sql`insert into notification_chunks (notification_id, first_subscription_id, last_subscription_id, attempt,
      subscription_ids, completed_at)
    values (${finished}, ${subscriptions[0] ?? ''}, ${subscriptions.at(-1) ?? ''}, 1, ${subscriptions}::uuid[], now())`;
  await sql`insert into notification_chunk_answers (notification_id, first_subscription_id, attempt, subscription_ids, kinds)
    values (${finished}, ${subscriptions[0] ?? ''}, 1, ${subscriptions}::uuid[], ${subscriptions.map(() => 'sent')}::text[])`;
  // Since migration 0041 the events carry their notification's app and creation time (this month's partition).
  await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
    select ${finished}, s.id, 'shown', n.app_id, n.created_at from unnest(${subscriptions}::uuid[]) as s(id)
    join notifications n on n.id = ${finished}`;
  const local = await notification('scheduled');
  await sql`insert into notification_local_groups (notification_id, due_at, zones, unzoned, targets)
    values (${local}, now() + interval '1 hour', '{Asia/Tokyo}', false, 5),
      (${local}, now() + interval '2 hours', '{Europe/Paris}', true, 15)`;
  const keyed = await notification('completed', 'order-1');
  return { appId, finished, local, keyed, subscriptions };
}

/** Rows of `table` by partition, for the notifications listed. */
const placement = async (sql: postgres.Sql, table: string, ids: string[]) =>
  (
    await sql.unsafe<{ partition: string; n: number }[]>(
      `select tableoid::regclass::text as partition, count(*)::int as n from ${table}
      where ${table === 'notifications' ? 'id' : 'notification_id'} = any($1::uuid[]) group by 1 order by 1`,
      [ids],
    )
  ).map((row) => `${row.partition}:${row.n}`);

for (const way of ['runMigrations', 'the migrator alone'] as const) {
  t.test(`the old tables' rows stay where they are, with their keys (${way})`, async (t) => {
    const { url, sql } = await databaseAt0043(t);
    const { appId, finished, local, keyed, subscriptions } = await seed(sql);
    let preparedIndex: number | undefined;
    if (way === 'runMigrations') {
      t.equal(await prepareNotificationPartitions(url), true, 'the tables are prepared');
      const [index] = await sql<{ oid: number; valid: boolean }[]>`select c.oid::int, i.indisvalid as valid
        from pg_class c join pg_index i on i.indexrelid = c.oid where c.relname = 'notifications_legacy_key'`;
      t.equal(index?.valid, true, 'the key index is built, concurrently, before 0044');
      preparedIndex = index?.oid;
      await runMigrations(url);
      t.equal(await prepareNotificationPartitions(url), false, 'nothing to prepare once partitioned');
    } else {
      await migrate(drizzle(sql), { migrationsFolder });
    }

    const kinds = await sql<{ name: string; kind: string }[]>`
      select relname as name, relkind as kind from pg_class where relname = any(${PARTITIONED}::text[]) order by 1`;
    t.strictSame(
      kinds.map((row) => `${row.name}:${row.kind}`),
      PARTITIONED.map((name) => `${name}:p`).sort(),
      'the four tables are partitioned',
    );
    const [bound] = await sql<{ at: string }[]>`
      select ((date_trunc('month', now() at time zone 'UTC') + interval '2 months') at time zone 'UTC')::text as at`;
    for (const table of PARTITIONED) {
      const parts = await sql<{ name: string; lower: string; upper: string }[]>`
        select name, lower::text, upper::text from table_partitions(${table}::regclass)`;
      t.strictSame(
        parts.slice(0, 2).map((row) => [row.name, row.lower, row.upper]),
        [
          [`${table}_legacy`, '-infinity', bound?.at],
          [`${table}_${(bound?.at ?? '').slice(0, 7).replace('-', '_')}`, bound?.at, parts[1]?.upper ?? 'missing'],
        ],
        `${table}: the old table, then the months from the start of the month after next`,
      );
    }
    if (preparedIndex !== undefined) {
      const [attached] = await sql<{ oid: number }[]>`select i.inhrelid::int as oid from pg_inherits i
        where i.inhparent = 'notifications_key'::regclass and i.inhrelid = ${preparedIndex}::oid`;
      t.equal(attached?.oid, preparedIndex, "the legacy partition's key is the index prepared, not a new build");
    }
    const ids = [finished, local, keyed];
    t.strictSame(await placement(sql, 'notifications', ids), ['notifications_legacy:3'], 'every notification');
    t.strictSame(await placement(sql, 'notification_chunks', ids), ['notification_chunks_legacy:1']);
    t.strictSame(await placement(sql, 'notification_chunk_answers', ids), ['notification_chunk_answers_legacy:1']);
    t.strictSame(await placement(sql, 'notification_local_groups', ids), ['notification_local_groups_legacy:2']);
    const [month] = await sql<{ name: string }[]>`
      select 'notification_events_' || to_char(now() at time zone 'UTC', 'YYYY_MM') as name`;
    t.strictSame(await placement(sql, 'notification_events', ids), [`${month?.name}:20`]);
    const [eventKey] = await sql<{ key: string }[]>`select pg_get_constraintdef(oid) as key from pg_constraint
      where conname = ${`${month?.name}_notification_fk`}`;
    t.match(
      eventKey?.key,
      /REFERENCES notifications_legacy\(id\) ON DELETE CASCADE NOT VALID/,
      "this month's events refer to the legacy notifications",
    );

    // The old keys hold: an idempotency key is still taken, a chunk of a notification that does not
    // exist is refused, in the legacy range and in a month.
    const duplicate = await sql`insert into notifications (app_id, payload, ttl, urgency, target_kind, targets,
        idempotency_key) values (${appId}, '{}'::jsonb, 60, 'normal', 'all', 1, 'order-1')`.catch((error) => error);
    t.match(duplicate, { code: '23505', constraint_name: /_app_idempotency_key$/ }, 'the key is still taken');
    const [later] = await sql<{ id: string; created_at: string }[]>`
      insert into notifications (app_id, payload, ttl, urgency, target_kind, targets, created_at)
      values (${appId}, '{}'::jsonb, 60, 'normal', 'all', 1, ${bound?.at ?? ''}::timestamptz + interval '3 days')
      returning id, created_at::text`;
    const chunk = (notificationId: string, createdAt: string) =>
      sql`insert into notification_chunks (notification_id, app_id, notification_created_at, first_subscription_id,
          last_subscription_id, attempt, subscription_ids)
        values (${notificationId}, ${appId}, ${createdAt}::timestamptz, ${subscriptions[0] ?? ''},
          ${subscriptions[0] ?? ''}, 1, ${[subscriptions[0] ?? '']}::uuid[])`;
    await chunk(later?.id ?? '', later?.created_at ?? '');
    t.strictSame(await placement(sql, 'notification_chunks', [later?.id ?? '']), [
      `notification_chunks_${(bound?.at ?? '').slice(0, 7).replace('-', '_')}:1`,
    ]);
    const orphan = await chunk(crypto.randomUUID(), later?.created_at ?? '').catch((error) => error);
    t.match(orphan, { code: '23503' }, 'a chunk without its notification is refused in a month');
    const [old] = await sql<
      { created_at: string }[]
    >`select created_at::text from notifications where id = ${finished}`;
    const legacyOrphan = await chunk(crypto.randomUUID(), old?.created_at ?? '').catch((error) => error);
    t.match(legacyOrphan, { code: '23503' }, 'and in the legacy range');

    // Deleting the app takes every row of it, old and new.
    await sql`delete from apps where id = ${appId}`;
    for (const table of [...PARTITIONED, 'notification_events']) {
      const [left] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${table}`);
      t.equal(left?.n, 0, `${table} is empty once the app is deleted`);
    }
  });
}

t.test('a database without notifications starts with month partitions only', async (t) => {
  const { url, sql } = await databaseAt0043(t);
  await runMigrations(url);
  for (const table of PARTITIONED) {
    const names = (await sql<{ name: string }[]>`select name from table_partitions(${table}::regclass)`).map(
      (row) => row.name,
    );
    t.equal(names.length, 3, `${table}: this month and two ahead`);
    t.notOk(names.includes(`${table}_legacy`));
  }
  const keys = await sql<{ name: string; valid: boolean }[]>`
    select c.conname as name, c.convalidated as valid from pg_constraint c
    where c.conname like 'notification_events_%_notification_fk' order by 1`;
  t.equal(keys.length, 3, "each month's events refer to that month's notifications");
});
