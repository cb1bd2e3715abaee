import { retentionStatements } from '@webpush/db';
import { appSubscriberCounted, setNotificationCreatedAt } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// Retention: finished notifications older than RETENTION_DAYS go with their events, chunks and
// progress; webhook events older than WEBHOOK_RETENTION_DAYS with their attempts; in batches of
// RETENTION_BATCH rows (2 here, so every step takes several batches); expired and retired
// subscriptions older than EXPIRED_SUBSCRIPTION_RETENTION_DAYS. Usage rows stay.
const harness = await deliveryHarness(t, {
  RETENTION_DAYS: '90',
  WEBHOOK_RETENTION_DAYS: '30',
  EXPIRED_SUBSCRIPTION_RETENTION_DAYS: '30',
  RETENTION_BATCH: '2',
});
const sql = harness.database.sql;
const worker = await harness.startInProcessWorker();

const count = async (table: string, notificationId: string) =>
  Number(
    (await sql.unsafe(`select count(*)::int as n from ${table} where notification_id = $1`, [notificationId]))[0]?.n,
  );

t.test('old finished notifications go with everything hanging off them; the rest stays', async (t) => {
  const owner = await harness.owner();
  const subscriptions = await harness.subscribe(owner, 5);
  const sends = [];
  for (let i = 0; i < 3; i++) {
    const { id } = await harness.notify(owner, { title: `Send ${i}`, body: 'b' });
    await harness.finished(owner, id);
    sends.push(id);
  }
  const [old, young, stuck] = sends as [string, string, string];
  for (const id of sends) {
    for (const subscription of subscriptions) {
      await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
        select id, ${subscription.subscriberId}, type, app_id, created_at
        from notifications, unnest(array['shown', 'clicked']) as type where id = ${id}`;
    }
  }
  for (const id of [old, stuck]) await setNotificationCreatedAt(sql, id, new Date(Date.now() - 91 * 86_400_000));
  // An old notification that has not finished (here: still scheduled) is not the retention's to delete.
  await sql`update notifications set status = 'scheduled', send_at = now() + interval '1 day' where id = ${stuck}`;
  const [usageBefore] = await sql`select sends::int as sends from monthly_usage where user_id = ${owner.user.user.id}`;
  t.ok((await count('notification_chunks', old)) > 0, 'the send left chunks');

  const removed = await worker.retention.runOnce();
  t.match(removed, { notifications: 1, events: 10 });
  t.ok(removed.chunks > 0);
  const [gone] = await sql`select count(*)::int as n from notifications where id = ${old}`;
  t.equal(gone?.n, 0);
  for (const table of ['notification_events', 'notification_chunks', 'notification_chunk_answers']) {
    t.equal(await count(table, old), 0, `${table} of the old send are gone`);
  }
  t.equal(await count('notification_events', young), 10, 'the young send keeps its events');
  const [kept] = await sql`select count(*)::int as n from notifications where id in (${young}, ${stuck})`;
  t.equal(kept?.n, 2, 'a young send and an unfinished one stay');
  const [usageAfter] = await sql`select sends::int as sends from monthly_usage where user_id = ${owner.user.user.id}`;
  t.same(usageAfter, usageBefore, 'the monthly usage is kept');
  t.match(await worker.retention.runOnce(), { notifications: 0, events: 0, chunks: 0 }, 'a second pass finds nothing');
});

t.test('webhook events older than their retention go with their attempts', async (t) => {
  const owner = await harness.owner();
  const appId = owner.app.id;
  const messages = await sql<{ id: string; age: string }[]>`
    insert into webhook_messages (app_id, type, subject_id, dedupe_key, status, created_at)
    select ${appId}, 'notification.completed', gen_random_uuid(), 'retention:' || g || ':' || ${appId}, 'delivered',
      now() - make_interval(days => case when g <= 5 then 31 else 29 end)
    from generate_series(1, 7) g
    returning id, case when created_at < now() - interval '30 days' then 'old' else 'young' end as age`;
  for (const message of messages) {
    await sql`insert into webhook_attempts (message_id, app_id, url, status, duration_ms)
      values (${message.id}, ${appId}, 'https://example.com/h', 200, 5)`;
  }
  const removed = await worker.retention.runOnce();
  t.equal(removed.webhookMessages, 5);
  const left = await sql`select id from webhook_messages where app_id = ${appId} order by id`;
  t.same(
    left.map((row) => row.id),
    messages
      .filter((message) => message.age === 'young')
      .map((message) => message.id)
      .sort(),
  );
  const [attempts] = await sql`select count(*)::int as n from webhook_attempts where app_id = ${appId}`;
  t.equal(attempts?.n, 2, 'the attempts of the deleted events went with them');
});

t.test('expired and retired subscriptions go after their retention, with their events; the rest stays', async (t) => {
  const owner = await harness.owner();
  const appId = owner.app.id;
  const subscriptions = await harness.subscribe(owner, 8);
  const { id: notificationId } = await harness.notify(owner, { title: 'Before', body: 'b' });
  await harness.finished(owner, notificationId);
  const ids = subscriptions.map((subscription) => subscription.subscriberId);
  const [old1, old2, old3, old4, old5, young, reactivated, active] = ids as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  for (const id of [old1, active]) {
    await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
      select id, ${id}, 'shown', app_id, created_at from notifications where id = ${notificationId}`;
  }
  // Five expired (or retired: the same status) 31 days ago, one 29 days ago, and one that expired
  // long ago but subscribed again since (active, so it stays).
  await sql`update subscriptions set status = 'expired', expired_at = now() - interval '31 days'
    where id in (${old1}, ${old2}, ${old3}, ${old4}, ${old5}, ${reactivated})`;
  await sql`update subscriptions set status = 'expired', expired_at = now() - interval '29 days' where id = ${young}`;
  await sql`update subscriptions set status = 'active', expired_at = null where id = ${reactivated}`;
  const [shownBefore] = await sql<{ shown: number }[]>`select shown from notifications where id = ${notificationId}`;

  const removed = await worker.retention.runOnce();
  t.equal(removed.expiredSubscriptions, 5, 'five, in batches of two');
  const left = await sql<{ id: string; status: string }[]>`
    select id, status from subscriptions where app_id = ${appId} order by id`;
  t.strictSame(
    left.map((row) => row.id),
    [young, reactivated, active].sort(),
    'the young expired one, the re-activated one and the active one stay',
  );
  const [events] = await sql<{ n: number }[]>`
    select count(*)::int as n from notification_events where notification_id = ${notificationId}`;
  t.equal(events?.n, 1, "the deleted subscription's events went with it");
  const [shownAfter] = await sql<{ shown: number }[]>`select shown from notifications where id = ${notificationId}`;
  t.strictSame(shownAfter, shownBefore, "the notification's counts are kept");
  t.strictSame(await appSubscriberCounted(sql, appId), { counter: 2, real: 2 }, "the app's count is unchanged");
  t.equal((await worker.retention.runOnce()).expiredSubscriptions, 0, 'a second pass finds nothing');
});

t.test('every retention statement finds its rows by an index, never a scan of the table', async (t) => {
  const ids = [crypto.randomUUID()];
  const plans: [keyof typeof retentionStatements, unknown[], RegExp][] = [
    // In every partition (migration 0044), by that partition's copy of the index named.
    ['expiredNotifications', [90, 100, 'infinity'], /Index Scan using notifications_\w+_created_at_idx/],
    ['events', [ids, ids, 100], /Index (Only )?Scan using notification_events_\w+_key/],
    ['chunkAnswers', [ids, 100], /Index (Only )?Scan using notification_chunk_answers_\w+_idx/],
    ['chunks', [ids, 100], /Index (Only )?Scan using notification_chunks_\w+_key/],
    ['localGroups', [ids], /Index (Only )?Scan using notification_local_groups_\w+_key/],
    ['notifications', [ids], /Index Scan using notifications_\w+_key/],
    ['webhookMessages', [30, 100], /Index Scan using webhook_messages_created_idx/],
    ['expiredSubscriptions', [30, 100], /Index Scan using subscriptions_expired_at_idx/],
  ];
  for (const [name, params, index] of plans) {
    // The test tables are tiny, where a sequential scan is cheapest: take that choice away to see
    // the plan the statement has on a large table.
    const plan = await sql.begin(async (tx) => {
      await tx`set local enable_seqscan = off`;
      await tx`set local enable_bitmapscan = off`;
      return tx.unsafe(`explain ${retentionStatements[name]}`, params as never[]);
    });
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    t.match(text, index, `${name}: ${text}`);
    t.notMatch(text, /Seq Scan/, `${name} scans no table`);
  }
});
