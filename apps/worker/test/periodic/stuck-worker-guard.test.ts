import { randomBytes } from 'node:crypto';
import { bullPrefix, createRedisConnection } from '@webpush/queue';
import { deleteRedisKeys, testRedisUrl } from '@webpush/testing';
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

async function until(what: string, condition: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

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
  await until('the job to be processed', () => processed.includes('a'));
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
  await until('the long job to start', () => guarded.checks > 0);
  // Looked at 20 times (1 s at 50 ms, over three times stuckMs) while the long job runs.
  const from = guarded.checks;
  await until('20 more looks at the queue', () => guarded.checks >= from + 20);
  t.equal(guarded.replacements, 0, 'not replaced: it is running a job');
  release();
  await until('both jobs', () => processed.length === 2);
  t.strictSame(processed, ['long', 'next']);
  t.equal(guarded.replacements, 0);
});
