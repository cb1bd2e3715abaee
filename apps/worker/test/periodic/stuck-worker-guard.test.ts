import { randomBytes } from 'node:crypto';
import { bullPrefix, createRedisConnection } from '@webpush/queue';
import { deleteRedisKeys, testRedisUrl, waitFor } from '@webpush/testing';
import { Queue, Worker } from 'bullmq';
import { pino } from 'pino';
import t from 'tap';
import { guardWorker } from '../../src/periodic/stuck-worker-guard.js';

const keyPrefix = `test:guard:${randomBytes(4).toString('hex')}`;
const prefix = bullPrefix(keyPrefix);
const connection = createRedisConnection({ redisUrl: testRedisUrl(), redisClusterNodes: null }, 'worker');
t.teardown(async () => {
  connection.disconnect();
  await deleteRedisKeys(testRedisUrl(), keyPrefix);
});
const log = pino({ level: 'silent' });

t.test('a worker that takes no job while jobs wait is replaced, and the new one takes them', async (t) => {
  const queue = new Queue('stuck', { connection, prefix });
  t.teardown(() => queue.close());
  const processed: string[] = [];
  let created = 0;
  const guarded = guardWorker(
    () => {
      created++;
      // The first worker never runs (autorun off): a worker that stopped taking jobs.
      return new Worker(
        'stuck',
        async (job) => {
          processed.push(String(job.id));
        },
        { connection, prefix, autorun: created > 1 },
      );
    },
    queue,
    { checkMs: 50, stuckMs: 300, log },
  );
  t.teardown(() => guarded.close(true));
  await queue.add('job', {}, { jobId: 'a' });
  await waitFor(() => processed.includes('a'), 'the job is processed');
  t.equal(guarded.replacements, 1, 'replaced once');
  t.equal(created, 2);
});

t.test('a worker busy with a long job is not replaced while others wait', async (t) => {
  const queue = new Queue('busy', { connection, prefix });
  t.teardown(() => queue.close());
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const processed: string[] = [];
  const guarded = guardWorker(
    () =>
      new Worker(
        'busy',
        async (job) => {
          if (job.id === 'long') await released;
          processed.push(String(job.id));
        },
        { connection, prefix, concurrency: 1 },
      ),
    queue,
    { checkMs: 50, stuckMs: 300, log },
  );
  t.teardown(() => guarded.close(true));
  await queue.add('job', {}, { jobId: 'long' });
  await queue.add('job', {}, { jobId: 'next' });
  await waitFor(() => guarded.checks > 0, 'the long job starts');
  // Looked at 20 times (1 s at 50 ms, over three times stuckMs) while the long job runs.
  const from = guarded.checks;
  await waitFor(() => guarded.checks >= from + 20, 'the guard looks at the queue 20 more times');
  t.equal(guarded.replacements, 0, 'not replaced: it is running a job');
  release();
  await waitFor(() => processed.length === 2, 'both jobs are processed');
  t.strictSame(processed, ['long', 'next']);
  t.equal(guarded.replacements, 0);
});
