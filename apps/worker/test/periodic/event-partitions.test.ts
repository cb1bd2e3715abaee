import { countEngagementEvents, createNotificationPartitions } from '@webpush/db';
import { setNotificationCreatedAt } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// Notifications, and their chunks, answers, local-time groups and engagement events, live in monthly
// partitions by the notification's creation (migrations 0041 and 0044): counted into the right month,
// once; the worker's retention pass keeps the months ahead created and drops a month past
// RETENTION_DAYS whole, the five tables' partitions together.
const harness = await deliveryHarness(t, { RETENTION_DAYS: '90', RETENTION_BATCH: '2' });
const sql = harness.database.sql;
const db = harness.database.db;
const worker = await harness.startInProcessWorker();

/** The partition of `notification_events` a month (0: this one, -1: the last…) has, by name. */
const monthName = async (offset: number) => {
  const [row] = await sql<{ name: string }[]>`
    select 'notification_events_' || to_char(date_trunc('month', now() at time zone 'UTC')
      + make_interval(months => ${offset}::int), 'YYYY_MM') as name`;
  return row?.name ?? '';
};
/** The middle of that month (UTC). */
const inMonth = async (offset: number) => {
  const [row] = await sql<{ at: Date }[]>`
    select (date_trunc('month', now() at time zone 'UTC') + make_interval(months => ${offset}::int, days => 14))
      at time zone 'UTC' as at`;
  return row?.at ?? new Date();
};
const partitions = async () =>
  (await sql<{ name: string }[]>`select name from notification_event_partitions()`).map((row) => row.name);
const eventsOf = async (notificationId: string) =>
  (
    await sql<
      { n: number }[]
    >`select count(*)::int as n from notification_events where notification_id = ${notificationId}`
  )[0]?.n;
const notificationExists = async (id: string) => (await sql`select 1 from notifications where id = ${id}`).length === 1;

t.test('a counted event lands in the partition of its notification’s month, and counts once', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 3);
  const { id: now } = await harness.notify(owner, { title: 'Now', body: 'b' });
  const { id: later } = await harness.notify(owner, { title: 'Later', body: 'b' });
  await harness.finished(owner, now);
  await harness.finished(owner, later);
  // The month is the notification's, not the event's: moved to next month, its events go there.
  await setNotificationCreatedAt(sql, later, await inMonth(1));

  const events = subscriptions.flatMap((subscription) =>
    [now, later].map((notificationId) => ({
      notificationId,
      subscriptionId: subscription.subscriberId,
      type: 'shown' as const,
    })),
  );
  t.equal(await countEngagementEvents(db, [...events, ...events]), 6, 'each (notification, subscription) once');
  t.equal(await countEngagementEvents(db, events), 0, 'counted again: nothing new');
  const placed = await sql<{ partition: string; notification_id: string; app: boolean; n: number }[]>`
    select e.tableoid::regclass::text as partition, e.notification_id, bool_and(e.app_id = n.app_id
      and e.notification_created_at = n.created_at) as app, count(*)::int as n
    from notification_events e join notifications n on n.id = e.notification_id
    where e.notification_id in (${now}, ${later}) group by 1, 2 order by 1`;
  t.strictSame(
    placed.map((row) => [row.partition, row.notification_id, row.app, row.n]),
    [
      [await monthName(0), now, true, 3],
      [await monthName(1), later, true, 3],
    ],
  );
  const counts = await sql<{ shown: number }[]>`select shown from notifications where id in (${now}, ${later})`;
  t.strictSame(
    counts.map((row) => row.shown),
    [3, 3],
  );
});

t.test('retention drops a month past RETENTION_DAYS whole; younger months and unfinished sends stay', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 3);
  await sql`select create_notification_event_partitions(0, 6)`;
  const send = async (monthOffset: number, scheduled = false) => {
    const payload = scheduled
      ? { title: 'Later', body: 'b', sendAt: new Date(Date.now() + 86_400_000).toISOString() }
      : { title: 'Send', body: 'b' };
    const { id } = await harness.notify(owner, payload);
    if (!scheduled) await harness.finished(owner, id);
    await setNotificationCreatedAt(sql, id, await inMonth(monthOffset));
    await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
      select n.id, s.id, 'shown', n.app_id, n.created_at from notifications n, subscriptions s
      where n.id = ${id} and s.id = any(${subscriptions.map((s) => s.subscriberId)}::uuid[])`;
    return id;
  };
  const old = await send(-5);
  // Month -6 waits for its scheduled send; its finished one goes a batch at a time.
  const blockedFinished = await send(-6);
  const blockedScheduled = await send(-6, true);
  const young = await send(0);
  const [dropped, blocked] = [await monthName(-5), await monthName(-6)];
  t.ok((await partitions()).includes(dropped));

  const removed = await worker.retention.runOnce();
  t.ok(removed.partitions >= 1, 'at least month -5 (and -4 when it is due too)');
  const left = await partitions();
  t.notOk(left.includes(dropped), `${dropped} is dropped`);
  t.notOk((await sql`select to_regclass(${dropped})::text as name`)[0]?.name, 'the table is gone');
  t.ok(left.includes(blocked), `${blocked} waits for its unfinished send`);
  t.ok(left.includes(await monthName(0)) && left.includes(await monthName(2)), 'this month and two ahead stay');
  t.notOk(await notificationExists(old), "the dropped month's notification went with it");
  for (const table of [
    'notifications',
    'notification_chunks',
    'notification_chunk_answers',
    'notification_local_groups',
  ]) {
    const name = dropped.replace('notification_events', table);
    t.notOk((await sql`select to_regclass(${name})::text as name`)[0]?.name, `${name} is gone too`);
  }
  t.equal(await eventsOf(old), 0);
  t.notOk(await notificationExists(blockedFinished), 'a finished send of the waiting month went');
  t.equal(await eventsOf(blockedFinished), 0, 'with its rows, a batch at a time');
  t.ok(await notificationExists(blockedScheduled), 'the unfinished one stays');
  t.equal(await eventsOf(blockedScheduled), 3, 'with its events');
  t.ok(await notificationExists(young));
  t.equal(await eventsOf(young), 3, "this month's events stay");
  t.match(removed, { notifications: 1, events: 3 }, 'rows deleted: only those of the waiting month');

  // Once the scheduled send has finished, its month goes as well.
  await sql`update notifications set status = 'canceled' where id = ${blockedScheduled}`;
  const again = await worker.retention.runOnce();
  t.ok(again.partitions >= 1);
  t.notOk((await partitions()).includes(blocked), `${blocked} is dropped`);
  t.match(again, { notifications: 0, events: 0 }, 'its notification with it, no row deleted');
  t.notOk(await notificationExists(blockedScheduled));
});

t.test('creating the months ahead is idempotent, also for two callers at once', async (t) => {
  const [next3, next4] = [await monthName(3), await monthName(4)];
  t.notOk((await partitions()).includes(next4));
  const made = await Promise.all([createNotificationPartitions(db, 4), createNotificationPartitions(db, 4)]);
  t.strictSame(
    made.sort((a, b) => a - b),
    [0, 2],
    'one caller made months +3 and +4, the other found them',
  );
  const names = await partitions();
  t.ok(names.includes(next3) && names.includes(next4));
  t.equal(await createNotificationPartitions(db, 4), 0, 'a third call makes nothing');
  t.equal(new Set(names).size, names.length);
});

t.test('rows that reached the default partition move into the month created for them', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Far', body: 'b' });
  await harness.finished(owner, id);
  // A month no partition covers yet (as when the worker was stopped for months).
  await setNotificationCreatedAt(sql, id, await inMonth(7));
  t.equal(
    await countEngagementEvents(db, [
      { notificationId: id, subscriptionId: subscription?.subscriberId ?? '', type: 'shown' },
    ]),
    1,
    'counted although its month has no partition',
  );
  const where = async () =>
    (await sql`select tableoid::regclass::text as name from notification_events where notification_id = ${id}`)[0]
      ?.name;
  t.equal(await where(), 'notification_events_default');
  t.equal(await createNotificationPartitions(db, 7), 3, 'months +5, +6 and +7');
  t.equal(await where(), await monthName(7), 'moved into its month');
  const [placed] = await sql<{ notification: string; chunks: string }[]>`
    select (select tableoid::regclass::text from notifications where id = ${id}) as notification,
      (select string_agg(distinct tableoid::regclass::text, ',') from notification_chunks where notification_id = ${id})
        as chunks`;
  t.strictSame(
    placed,
    {
      notification: (await monthName(7)).replace('notification_events', 'notifications'),
      chunks: (await monthName(7)).replace('notification_events', 'notification_chunks'),
    },
    'the notification and its chunks too',
  );
  const [inDefault] = await sql<{ n: number }[]>`select count(*)::int as n from notification_events_default`;
  t.equal(inDefault?.n, 0, 'the default partition is empty again');
  t.equal(
    await countEngagementEvents(db, [
      { notificationId: id, subscriptionId: subscription?.subscriberId ?? '', type: 'shown' },
    ]),
    0,
    'and still counts it once',
  );
});
