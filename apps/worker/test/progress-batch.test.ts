import t from 'tap';
import { deliveryHarness } from './helper.js';

// DELIVERY_PROGRESS_BATCH: how many answers of a chunk go to PostgreSQL per progress write. Every
// UPDATE of a chunk row is counted by a trigger of this test's own (the progress writes and the one
// that records the chunk's outcome), per notification.
const SUBSCRIBERS = 30;
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '10', PUSH_CONCURRENCY: '2' });
const { config, push } = harness;
const sql = harness.database.sql;
await sql`create table test_chunk_writes (notification_id uuid not null)`;
await sql`create function test_count_chunk_write() returns trigger language plpgsql as $$
  begin insert into test_chunk_writes values (new.notification_id); return new; end $$`;
await sql`create trigger test_count_chunk_write after update on notification_chunks
  for each row execute function test_count_chunk_write()`;

const owner = await harness.owner();
const subscriptions = await harness.insertSubscriptions(owner, SUBSCRIBERS);
const everyone = subscriptions.map((subscription) => subscription.id).sort();

/** Sends to every subscriber with a worker writing progress every `progressBatch` answers. */
async function sendWith(progressBatch: number) {
  const worker = await harness.startInProcessWorker({
    config: { ...config, delivery: { ...config.delivery, progressBatch } },
  });
  const before = push.received.length;
  const { id } = await harness.notify(owner, { title: `Batch ${progressBatch}`, body: 'b' });
  const done = await harness.finished(owner, id);
  await worker.close();
  const [row] = await sql<{ chunks: number; writes: number }[]>`
    select (select count(*)::int from notification_chunks where notification_id = ${id}) as chunks,
      (select count(*)::int from test_chunk_writes where notification_id = ${id}) as writes`;
  const arrived = push.received.slice(before).map((message) => message.subscriptionId);
  return { done, chunks: row?.chunks ?? 0, writes: row?.writes ?? 0, arrived };
}

t.test('a batch larger than any chunk: each chunk row is written once, with its outcome', async (t) => {
  const { done, chunks, writes, arrived } = await sendWith(1_000_000);
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS });
  t.ok(chunks >= 3, `${chunks} chunks`);
  t.equal(writes, chunks, 'no progress write');
  t.strictSame([...new Set(arrived)].sort(), everyone, 'every subscriber once');
  t.equal(arrived.length, SUBSCRIBERS);
});

t.test('a batch of 1: progress is written while each chunk is sent', async (t) => {
  const { done, chunks, writes, arrived } = await sendWith(1);
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS });
  t.ok(
    writes >= 2 * chunks,
    `${writes} writes for ${chunks} chunks: at least one progress write each, and the outcome`,
  );
  t.strictSame([...new Set(arrived)].sort(), everyone, 'every subscriber once');
  t.equal(arrived.length, SUBSCRIBERS);
  const [row] = await sql<{ answered: number }[]>`
    select coalesce(sum(cardinality(answered_subscription_ids)), 0)::int as answered
    from notification_chunks where notification_id = ${done.id}`;
  t.equal(row?.answered, SUBSCRIBERS, 'every answer recorded once');
});
