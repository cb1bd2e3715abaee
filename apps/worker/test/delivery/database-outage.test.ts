import {
  type AnswerKind,
  type Database,
  isDatabaseUnreachable,
  planDeliveryChunks,
  recordChunkOutcome,
} from '@webpush/db';
import t from 'tap';
import { recordChunkOutcomeThroughOutage } from '../../src/delivery/chunk-outcome.js';
import { type OutageRetryPolicy, retryWhileDatabaseAway } from '../../src/delivery/database-outage.js';
import { ProgressRecorder } from '../../src/delivery/progress-recorder.js';
import { deliveryHarness } from '../helper.js';

// PostgreSQL going away in the middle of a write: the write is tried again with the answers the
// worker already has, and a try whose first attempt committed (only the answer was lost) counts once.
const FAST: OutageRetryPolicy = { totalMs: 5_000, firstDelayMs: 5, maxDelayMs: 20 };

const connectionLost = () =>
  Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5432'), { code: 'CONNECTION_CLOSED' });

/**
 * `db` whose next `times` statements (tagged queries or `begin` transactions) run, commit, and then
 * fail as if the connection broke before their answer arrived.
 */
function losingAnswers(db: Database, times: number): Database & { lost: () => number } {
  let left = times;
  const take = () => left > 0 && left-- > 0;
  const client = new Proxy(db.$client, {
    apply(target, thisArg, args: unknown[]) {
      const query = Reflect.apply(target, thisArg, args) as Promise<unknown>;
      const tagged = Array.isArray(args[0]) && 'raw' in (args[0] as object);
      if (!tagged || !take()) return query;
      return query.then(() => Promise.reject(connectionLost()));
    },
    get(target, property, receiver) {
      if (property !== 'begin') return Reflect.get(target, property, receiver);
      return (...args: Parameters<Database['$client']['begin']>) => {
        const run = target.begin(...args) as Promise<unknown>;
        return take() ? run.then(() => Promise.reject(connectionLost())) : run;
      };
    },
  });
  return Object.assign({}, db, { $client: client, lost: () => times - left });
}

/** A database handle whose every statement fails with `error`. */
const failingWith = (error: Error) => ({ $client: () => Promise.reject(error) }) as unknown as Database;

t.test('what counts as PostgreSQL unreachable', async (t) => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  for (const code of ['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'ECONNREFUSED', 'ECONNRESET']) {
    t.ok(isDatabaseUnreachable(coded(code)), code);
  }
  t.ok(isDatabaseUnreachable(coded('57P01')), 'terminating connection due to administrator command');
  t.ok(isDatabaseUnreachable(coded('57P03')), 'the database system is starting up');
  t.ok(isDatabaseUnreachable(coded('08006')), 'connection failure');
  t.ok(isDatabaseUnreachable(new Error('query failed', { cause: coded('ECONNREFUSED') })), 'wrapped (drizzle)');
  t.ok(isDatabaseUnreachable(Object.assign(new AggregateError([coded('ECONNREFUSED')]))), 'every address refused');
  t.notOk(isDatabaseUnreachable(coded('23505')), 'a unique violation');
  t.notOk(isDatabaseUnreachable(coded('40P01')), 'a deadlock');
  t.notOk(isDatabaseUnreachable(coded('CONNECTION_ENDED')), 'our own pool closed');
  t.notOk(isDatabaseUnreachable(new TypeError('a bug')));
  t.notOk(isDatabaseUnreachable(null));
});

t.test('retries while unreachable, not otherwise, and not for ever', async (t) => {
  let calls = 0;
  const value = await retryWhileDatabaseAway(async () => {
    calls++;
    if (calls < 3) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    return 'written';
  }, FAST);
  t.equal(value, 'written');
  t.equal(calls, 3, 'tried until PostgreSQL answered');

  calls = 0;
  const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
  await t.rejects(
    retryWhileDatabaseAway(async () => {
      calls++;
      throw refused;
    }, FAST),
    refused,
  );
  t.equal(calls, 1, 'a refused statement is not tried again');

  calls = 0;
  const started = Date.now();
  await t.rejects(
    retryWhileDatabaseAway(
      async () => {
        calls++;
        throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
      },
      { totalMs: 200, firstDelayMs: 10, maxDelayMs: 40 },
    ),
    { code: 'ECONNREFUSED' },
  );
  t.ok(calls > 2, `${calls} tries`);
  t.ok(Date.now() - started < 1_000, 'gave up once the time allowed was spent');
});

t.test('a write PostgreSQL refused, or stayed away from for too long, fails the chunk', async (t) => {
  const chunk = {
    notificationId: crypto.randomUUID(),
    firstSubscriptionId: crypto.randomUUID(),
    attempt: 1,
    appId: '',
  };
  const refused = Object.assign(new Error('duplicate key'), { code: '23505' });
  let retries = 0;
  const recorder = new ProgressRecorder(failingWith(refused), 2, { outageRetry: FAST, onRetry: () => retries++ });
  const progress = recorder.open(chunk);
  progress.answer(crypto.randomUUID(), 'sent');
  t.ok(progress.answer(crypto.randomUUID(), 'sent'), 'a batch');
  await progress.settle();
  await progress.finish();
  t.equal(progress.failure, refused, 'a refused write fails the chunk at once');
  t.equal(retries, 0);

  const away = new ProgressRecorder(failingWith(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })), 1, {
    outageRetry: { totalMs: 100, firstDelayMs: 10, maxDelayMs: 20 },
  });
  const stuck = away.open(chunk);
  stuck.answer(crypto.randomUUID(), 'sent');
  await stuck.settle();
  await stuck.finish();
  t.match(stuck.failure, { code: 'ECONNREFUSED' }, 'PostgreSQL away for longer than allowed fails the chunk');
});

t.test('a progress write that committed but lost its answer is written again and counted once', async (t) => {
  const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '10' });
  const { database } = harness;
  const sql = database.sql;
  const owner = await harness.owner();
  await harness.insertSubscriptions(owner, 10);
  const { id } = await harness.notify(owner, { title: 'Once', body: 'Counted once' });
  const { chunks } = await planDeliveryChunks(database.db, id, { chunkSize: 10, maxChunks: 5 });
  const [chunk] = chunks;
  if (!chunk || chunks.length !== 1) throw new Error(`${chunks.length} chunks planned`);

  const flaky = losingAnswers(database.db, 1);
  const retries: unknown[] = [];
  const recorder = new ProgressRecorder(flaky, 4, { outageRetry: FAST, onRetry: (error) => retries.push(error) });
  const progress = recorder.open(chunk);
  const kinds: AnswerKind[] = ['sent', 'sent', 'expired', 'sent', 'sent', 'failed', 'sent', 'sent', 'sent', 'sent'];
  for (const [index, subscriptionId] of chunk.subscriptionIds.entries()) {
    if (progress.answer(subscriptionId, kinds[index] as AnswerKind)) await progress.settle();
  }
  const last = await progress.finish();
  t.equal(flaky.lost(), 1, 'the first write committed and its answer was lost');
  t.equal(retries.length, 1, 'that write was tried again');
  t.equal(progress.failure, null, 'the chunk did not fail');
  t.equal(progress.abandoned, false);
  t.equal(last.ids.length, 2, 'the last two answers are left for the outcome');

  const [rows] = await sql<{ rows: number; answers: number; distinct: number }[]>`
    select count(*)::int as rows, sum(cardinality(subscription_ids))::int as answers,
      (select count(distinct id)::int from notification_chunk_answers p2, unnest(p2.subscription_ids) id
        where p2.notification_id = ${id}) as distinct
    from notification_chunk_answers p where p.notification_id = ${id}`;
  t.match(rows, { rows: 3, answers: 12, distinct: 8 }, 'the first batch is there twice');

  const outcome = await recordChunkOutcome(database.db, chunk, last, 0, () => new Date());
  t.match(outcome, { recorded: true, counts: { sent: 8, failed: 1, expired: 1 }, retryChunk: null });
  const [notification] = await sql<{ sent: number; failed: number; expired: number }[]>`
    select sent, failed, expired from notifications where id = ${id}`;
  t.match(notification, { sent: 8, failed: 1, expired: 1 }, 'every answer counted once');
  const [folded] = await sql<{ answered: string[] }[]>`
    select answered_subscription_ids as answered from notification_chunks where notification_id = ${id}`;
  t.strictSame([...(folded?.answered ?? [])].sort(), [...chunk.subscriptionIds].sort(), 'each target answered once');
  const [expired] = await sql<{ n: number }[]>`
    select count(*)::int as n from subscriptions where app_id = ${owner.app.id} and status = 'expired'`;
  t.equal(expired?.n, 1, 'the expiry was written once');
});

t.test('an outcome that committed but lost its answer: counted once, its retry chunk still queued', async (t) => {
  const harness = await deliveryHarness(t, { DELIVERY_CHUNK_SIZE: '10' });
  const { database } = harness;
  const sql = database.sql;
  const owner = await harness.owner();
  await harness.insertSubscriptions(owner, 10);
  const { id } = await harness.notify(owner, { title: 'Outcome', body: 'Counted once' });
  const { chunks } = await planDeliveryChunks(database.db, id, { chunkSize: 10, maxChunks: 5 });
  const [chunk] = chunks;
  if (!chunk || chunks.length !== 1) throw new Error(`${chunks.length} chunks planned`);

  const kinds: AnswerKind[] = chunk.subscriptionIds.map((_, index) => (index < 2 ? 'retry' : 'sent'));
  const last = { ids: chunk.subscriptionIds, kinds, retryAfterMs: 0 };
  const flaky = losingAnswers(database.db, 1);
  let retries = 0;
  const outcome = await recordChunkOutcomeThroughOutage(
    {
      db: flaky,
      chunk,
      last,
      vanished: 0,
      retryNotBefore: () => new Date(),
      failureReasons: { '500': 1 },
      refusals: null,
    },
    FAST,
    () => retries++,
  );
  t.equal(flaky.lost(), 1, 'the first transaction committed and its answer was lost');
  t.equal(retries, 1);
  t.match(outcome, { recorded: false, counts: null }, 'the second try finds the chunk counted');
  t.match(
    outcome.retryChunk,
    {
      notificationId: id,
      attempt: 2,
      firstSubscriptionId: [...chunk.subscriptionIds.slice(0, 2)].sort()[0],
      subscriptionIds: [...chunk.subscriptionIds.slice(0, 2)].sort(),
    },
    'the retry chunk it planned is handed back to be queued',
  );
  const [notification] = await sql<{ sent: number; failed: number; reasons: Record<string, number> }[]>`
    select sent, failed, failure_reasons as reasons from notifications where id = ${id}`;
  t.match(notification, { sent: 8, failed: 0, reasons: { '500': 1 } }, 'counted once');
  const [planned] = await sql<{ n: number }[]>`
    select count(*)::int as n from notification_chunks where notification_id = ${id} and attempt = 2`;
  t.equal(planned?.n, 1, 'one retry chunk');
});
