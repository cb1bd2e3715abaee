import t from 'tap';
import { deliveryHarness } from '../helper.js';

// DELIVERY_PROGRESS_BATCH: how many answers go to PostgreSQL per progress write, across the chunks a
// worker is sending. Every chunk's write is counted by triggers of this test's own, per notification:
// a progress row inserted (a progress write) or an UPDATE of a chunk row (the one that records the
// chunk's outcome); and every statement that writes them, with how many rows it wrote.
const SUBSCRIBERS = 30;
const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '10', PUSH_CONCURRENCY: '2' });
const { config, push } = harness;
const sql = harness.database.sql;
await sql`create table test_chunk_writes (notification_id uuid not null)`;
await sql`create function test_count_chunk_write() returns trigger language plpgsql as $$
  begin insert into test_chunk_writes values (new.notification_id); return new; end $$`;
await sql`create trigger test_count_chunk_write after update on notification_chunks
  for each row execute function test_count_chunk_write()`;
await sql`create trigger test_count_chunk_write after insert on notification_chunk_answers
  for each row execute function test_count_chunk_write()`;
await sql`create table test_chunk_statements (rows int not null)`;
await sql`create function test_count_chunk_statement() returns trigger language plpgsql as $$
  begin insert into test_chunk_statements select count(*) from changed; return null; end $$`;
await sql`create trigger test_count_chunk_statement after update on notification_chunks
  referencing new table as changed for each statement execute function test_count_chunk_statement()`;
await sql`create trigger test_count_chunk_statement after insert on notification_chunk_answers
  referencing new table as changed for each statement execute function test_count_chunk_statement()`;

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

t.test('one progress write carries the answers of every chunk being sent', async (t) => {
  // Slow answers keep the three chunks of 10 (WORKER_DELIVERY_CONCURRENCY 4) in flight together.
  for (const id of everyone) push.script(id, { status: 201, delayMs: 20 });
  await sql`delete from test_chunk_statements`;
  const { done, chunks, writes, arrived } = await sendWith(4);
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS });
  t.ok(chunks >= 3, `${chunks} chunks`);
  t.ok(writes > chunks, `${writes} writes of chunks: progress was written`);
  const [statements] = await sql<{ total: number; widest: number }[]>`
    select count(*)::int as total, max(rows)::int as widest from test_chunk_statements`;
  t.ok((statements?.widest ?? 0) >= 2, `a statement wrote progress of ${statements?.widest} chunks at once`);
  t.ok((statements?.total ?? 0) < writes, `${statements?.total} statements for ${writes} chunk writes`);
  t.strictSame([...new Set(arrived)].sort(), everyone, 'every subscriber once');
  const [row] = await sql<{ answered: number }[]>`
    select coalesce(sum(cardinality(answered_subscription_ids)), 0)::int as answered
    from notification_chunks where notification_id = ${done.id}`;
  t.equal(row?.answered, SUBSCRIBERS, 'every answer recorded once');
});
