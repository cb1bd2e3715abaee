// Migration 0041 moves an existing `notification_events` into the partitioned table without copying
// a row: the old table becomes the partition `notification_events_legacy`. A database is migrated
// to 0040 (the committed migrations up to it), given events, then migrated on, two ways:
// `runMigrations` (which prepares the table outside any transaction first, so that 0041 attaches
// the very index it built) and drizzle's migrator alone (0041 does everything itself).

import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import t from 'tap';
import type { Database } from '../src/client.js';
import { countEngagementEvents, notificationReport } from '../src/index.js';
import { migrationsFolder, prepareEventPartitions, runMigrations } from '../src/migrate.js';
import * as schema from '../src/schema.js';
import { adminUrl, emptyDatabase, migrationsWhere } from './migration-fixtures.js';

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
t.teardown(() => admin.end({ timeout: 5 }));

/** The committed migrations up to 0040, the last one before the partitions. */
const before0041 = migrationsWhere(t, (entry) => entry.tag < '0041');

async function databaseAt0040(t: Tap.Test) {
  const database = await emptyDatabase(t, admin);
  await migrate(drizzle(database.sql), { migrationsFolder: before0041 });
  return database;
}

const SUBSCRIPTIONS = 50;

/** An app, a finished send to 50 subscriptions with its chunk, and a `shown` of each: the old table's rows. */
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
  const [notification] = await sql<{ id: string }[]>`
    insert into notifications (app_id, payload, ttl, urgency, target_kind, targets, status, sent, shown)
    values (${appId}, ${JSON.stringify({ title: 'Old', body: 'b' })}::jsonb, 60, 'normal', 'all', ${SUBSCRIPTIONS}, 'completed',
      ${SUBSCRIPTIONS}, ${SUBSCRIPTIONS}) returning id`;
  const notificationId = notification?.id ?? '';
  await sql`insert into notification_chunks (notification_id, first_subscription_id, last_subscription_id, attempt,
      subscription_ids, answered_subscription_ids, answered_kinds, completed_at)
    values (${notificationId}, ${subscriptions[0] ?? ''}, ${subscriptions.at(-1) ?? ''}, 1, ${subscriptions}::uuid[],
      ${subscriptions}::uuid[], ${'s'.repeat(SUBSCRIPTIONS)}, now())`;
  await sql`insert into notification_events (notification_id, subscription_id, type)
    select ${notificationId}, id, 'shown' from unnest(${subscriptions}::uuid[]) as id`;
  return { appId, notificationId, subscriptions };
}

for (const way of ['runMigrations', 'the migrator alone'] as const) {
  t.test(`an existing table's rows stay readable and countable (${way})`, async (t) => {
    const { url, sql } = await databaseAt0040(t);
    const { notificationId, subscriptions } = await seed(sql);
    let preparedIndex: number | undefined;
    if (way === 'runMigrations') {
      t.equal(await prepareEventPartitions(url), true, 'the table is prepared');
      const [index] = await sql<{ oid: number; valid: boolean }[]>`select c.oid::int, i.indisvalid as valid
        from pg_class c join pg_index i on i.indexrelid = c.oid where c.relname = 'notification_events_legacy_key'`;
      t.equal(index?.valid, true, 'its key index is built, concurrently, before 0041');
      preparedIndex = index?.oid;
      await runMigrations(url);
    } else {
      await migrate(drizzle(sql), { migrationsFolder });
    }

    const [kind] = await sql<
      { kind: string }[]
    >`select relkind as kind from pg_class where relname = 'notification_events'`;
    t.equal(kind?.kind, 'p', 'notification_events is partitioned');
    const partitions = await sql<
      { name: string; lower: Date }[]
    >`select name, lower from notification_event_partitions()`;
    t.equal(partitions[0]?.name, 'notification_events_legacy', 'the old table is the first partition');
    t.equal(partitions[0]?.lower, '-infinity');
    t.ok(partitions.length >= 4, 'then this month, from the migration on, and two ahead');
    if (preparedIndex !== undefined) {
      const [attached] = await sql<{ oid: number }[]>`select i.inhrelid::int as oid from pg_inherits i
        where i.inhparent = 'notification_events_key'::regclass`;
      t.equal(attached?.oid, preparedIndex, 'the key of the legacy partition is the index prepared, not a new build');
    }
    const rows = await sql<{ partition: string; n: number }[]>`
      select tableoid::regclass::text as partition, count(*)::int as n from notification_events
      where notification_id = ${notificationId} group by 1`;
    t.strictSame([...rows], [{ partition: 'notification_events_legacy', n: SUBSCRIPTIONS }], 'every row, where it was');

    const db = drizzle(sql, { schema }) as unknown as Database;
    const report: { shown: boolean }[] = [];
    for await (const batch of notificationReport(db, notificationId)) report.push(...batch);
    t.equal(report.length, SUBSCRIPTIONS);
    t.ok(
      report.every((row) => row.shown),
      "the report reads the legacy rows' engagement",
    );

    // A late event of the old notification: a `shown` counted before the migration counts nothing,
    // a click is new. Both route to the legacy partition (the notification was created before).
    const subscriptionId = subscriptions[0] ?? '';
    const counted = await countEngagementEvents(db, [
      { notificationId, subscriptionId, type: 'shown' },
      { notificationId, subscriptionId, type: 'clicked' },
    ]);
    t.equal(counted, 1, 'the shown counted before the migration is not counted again');
    const [counts] = await sql<{ shown: number; clicked: number }[]>`
      select shown, clicked from notifications where id = ${notificationId}`;
    t.strictSame(counts, { shown: SUBSCRIPTIONS, clicked: 1 });
    const [click] = await sql<{ partition: string }[]>`
      select tableoid::regclass::text as partition from notification_events
      where notification_id = ${notificationId} and type = 'clicked'`;
    t.equal(click?.partition, 'notification_events_legacy');
    t.equal(await countEngagementEvents(db, [{ notificationId, subscriptionId, type: 'clicked' }]), 0, 'nor twice');
  });
}

t.test('a database without events starts without a legacy partition', async (t) => {
  const { url, sql } = await databaseAt0040(t);
  await runMigrations(url);
  const names = (await sql<{ name: string }[]>`select name from notification_event_partitions()`).map(
    (row) => row.name,
  );
  t.notOk(names.includes('notification_events_legacy'));
  t.equal((await sql`select to_regclass('notification_events_legacy') as oid`)[0]?.oid, null);
});
