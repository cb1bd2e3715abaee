import { createDatabase, planDeliveryChunks } from '@webpush/db';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// Planning a page of chunks costs the same few statements whatever the number of chunks, and what it
// plans is exactly the keyset order: sorted, contiguous, no id twice, the stored rows equal to the
// chunks handed back, and targets that vanished counted as expired.
t.test('a plan call: a page of chunks in a fixed number of statements, continued where it stopped', async (t) => {
  const harness = await deliveryHarness(t);
  const { database, config } = harness;
  const owner = await harness.owner();
  await harness.insertSubscriptions(owner, 95);
  const { id, targets } = await harness.notify(owner, { title: 'Planned', body: 'In pages' });
  t.equal(targets, 95);
  // Three targets go away after the send was accepted, before the plan reaches them.
  const gone = await database.sql<{ id: string }[]>`
    delete from subscriptions where id in (
      select id from subscriptions where app_id = ${owner.app.id} order by id desc limit 3)
    returning id`;
  t.equal(gone.length, 3);

  const statements: string[] = [];
  const counted = createDatabase(config.databaseUrl, { max: 1, onQuery: (query) => statements.push(query) });
  t.teardown(() => counted.close());
  await counted.sql`select 1`; // postgres.js reads the array types on a new connection first
  const plan = async (maxChunks: number) => {
    statements.length = 0;
    const result = await planDeliveryChunks(counted.db, id, { chunkSize: 10, maxChunks });
    return { ...result, statements: statements.length };
  };

  const first = await plan(1);
  const second = await plan(5);
  t.equal(first.chunks.length, 1);
  t.equal(second.chunks.length, 5);
  t.equal(first.done, false);
  t.equal(second.done, false);
  t.ok(
    second.statements <= 6,
    `5 chunks: ${second.statements} statements (begin, plan mode, lock, page, update, commit)`,
  );
  t.equal(second.statements, first.statements, 'as many statements for 5 chunks as for 1');

  // 60 planned; 32 left of the 35 still to plan: a short page, so the plan is done (92 planned, 3 expired).
  const third = await plan(5);
  t.equal(third.done, true);
  t.strictSame(
    third.chunks.map((chunk) => chunk.subscriptionIds.length),
    [10, 10, 10, 2],
  );
  t.strictSame(
    await plan(5),
    { chunks: [], done: true, statements: 4 },
    'a finished plan: begin, plan mode, lock, commit',
  );

  const planned = [...first.chunks, ...second.chunks, ...third.chunks];
  const ids = planned.flatMap((chunk) => chunk.subscriptionIds);
  const active = await database.sql<{ id: string }[]>`
    select id from subscriptions where app_id = ${owner.app.id} order by id`;
  t.strictSame(
    ids,
    active.map((row) => row.id),
    'every remaining target once, in keyset order',
  );
  for (const chunk of planned) {
    t.equal(chunk.firstSubscriptionId, chunk.subscriptionIds[0]);
    t.equal(chunk.attempt, 1);
    t.equal(chunk.appId, owner.app.id);
  }
  const rows = await database.sql<{ first: string; ids: string[]; last: string }[]>`
    select first_subscription_id as first, subscription_ids as ids, last_subscription_id as last
    from notification_chunks where notification_id = ${id} order by first_subscription_id`;
  t.strictSame(
    [...rows],
    planned.map((chunk) => ({
      first: chunk.firstSubscriptionId,
      ids: chunk.subscriptionIds,
      last: chunk.subscriptionIds[chunk.subscriptionIds.length - 1],
    })),
    'the stored chunks are the ones handed back',
  );
  const [notification] = await database.sql`
    select planned, plan_cursor, fanned_out_at is not null as fanned_out, expired, status
    from notifications where id = ${id}`;
  t.match(notification, {
    planned: 92,
    plan_cursor: ids[ids.length - 1],
    fanned_out: true,
    expired: 3,
    status: 'queued',
  });
});

t.test('the plan of a fixed list of targets (a batch send) pages through the list', async (t) => {
  const harness = await deliveryHarness(t);
  const { database, config } = harness;
  const owner = await harness.owner();
  await harness.insertSubscriptions(owner, 30);
  const { id } = await harness.notify(owner, { title: 'Some', body: 'Of them' });
  // The stored list decides the targets, not the app's subscriptions: 25 of the 30, unsorted.
  const stored = await database.sql<{ id: string }[]>`
    select id from subscriptions where app_id = ${owner.app.id} order by endpoint limit 25`;
  const list = stored.map((row) => row.id);
  await database.sql`update notifications set subscription_ids = ${list}::uuid[], targets = 25 where id = ${id}`;

  const handle = createDatabase(config.databaseUrl, { max: 1 });
  t.teardown(() => handle.close());
  const first = await planDeliveryChunks(handle.db, id, { chunkSize: 10, maxChunks: 2 });
  const rest = await planDeliveryChunks(handle.db, id, { chunkSize: 10, maxChunks: 2 });
  t.strictSame([first.done, rest.done], [false, true]);
  t.strictSame(
    [...first.chunks, ...rest.chunks].flatMap((chunk) => chunk.subscriptionIds),
    [...list].sort(),
    'the list, sorted, once',
  );
  const [notification] = await database.sql`select planned, expired from notifications where id = ${id}`;
  t.match(notification, { planned: 25, expired: 0 });
});
