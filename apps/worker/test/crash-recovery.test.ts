import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import t from 'tap';
import { deliveryHarness } from './helper.js';

const root = new URL('../../../', import.meta.url).pathname;
const SUBSCRIBERS = 5_000;
const CHUNK_SIZE = 100;
const CHUNK_CONCURRENCY = 4;

t.test('a worker killed with SIGKILL mid fan-out: the next one delivers to every target', async (t) => {
  const harness = await deliveryHarness(t, {
    DELIVERY_CHUNK_SIZE: String(CHUNK_SIZE),
    WORKER_DELIVERY_CONCURRENCY: String(CHUNK_CONCURRENCY),
    PUSH_CONCURRENCY: '10',
    // Locks of the killed worker's jobs lapse after 2 s; stalled checks every second find them.
    WORKER_LOCK_DURATION_MS: '2000',
    WORKER_STALLED_INTERVAL_MS: '1000',
  });
  const { config, push } = harness;
  const sql = harness.database.sql;
  const owner = await harness.owner();
  const subscriptions = await harness.insertSubscriptions(owner, SUBSCRIBERS);
  // A push service that takes 15 ms an answer keeps the fan-out going for a few seconds.
  for (const subscription of subscriptions) push.script(subscription.id, { status: 201, delayMs: 15, times: Infinity });

  const { id, targets } = await harness.notify(owner, { title: 'Everyone', body: 'Even after a crash' });
  t.equal(targets, SUBSCRIBERS);

  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=webpush-source', '--import', 'tsx', 'apps/worker/src/main.ts'],
    {
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: config.databaseUrl,
        REDIS_URL: config.redisUrl,
        REDIS_KEY_PREFIX: config.redisKeyPrefix,
        ENCRYPTION_KEY: config.encryptionKey?.toString('base64'),
        PUSH_SERVICE_HOSTS: push.hostRule,
        NODE_EXTRA_CA_CERTS: push.certPath,
        DELIVERY_CHUNK_SIZE: String(CHUNK_SIZE),
        WORKER_DELIVERY_CONCURRENCY: String(CHUNK_CONCURRENCY),
        PUSH_CONCURRENCY: '10',
        WORKER_LOCK_DURATION_MS: '2000',
        WORKER_STALLED_INTERVAL_MS: '1000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit');
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  await push.waitForMessages(1_500, 30_000).catch((error: Error) => {
    throw new Error(`${error.message}\nworker stderr:\n${stderr}`);
  });
  child.kill('SIGKILL');
  const [, signal] = await exited;
  t.equal(signal, 'SIGKILL');
  const atKill = push.received.length;
  const midway = await harness.status(owner, id);
  t.ok(atKill < SUBSCRIBERS, `killed mid-way: ${atKill} of ${SUBSCRIBERS} messages out`);
  t.not(midway.status, 'completed');

  await harness.startInProcessWorker();
  const done = await harness.finished(owner, id, 60_000);
  t.match(done, { status: 'completed', targets: SUBSCRIBERS, sent: SUBSCRIBERS, failed: 0, expired: 0 });
  t.equal(done.sent + done.failed + done.expired, done.targets);

  const delivered = new Set(push.received.filter((m) => m.status === 201).map((m) => m.subscriptionId));
  t.equal(delivered.size, SUBSCRIBERS, 'every target got the message at least once');
  const duplicates = push.received.length - SUBSCRIBERS;
  t.ok(
    duplicates <= CHUNK_CONCURRENCY * CHUNK_SIZE,
    `only the chunks in flight at the crash were sent twice (${duplicates} duplicates)`,
  );
  t.strictSame(push.protocolErrors, []);

  const [chunks] = await sql`select count(*)::int as chunks, sum(sent)::int as sent,
      count(*) filter (where completed_at is null)::int as open
    from notification_chunks where notification_id = ${id}`;
  t.strictSame(
    { ...chunks },
    { chunks: SUBSCRIBERS / CHUNK_SIZE, sent: SUBSCRIBERS, open: 0 },
    'each chunk counted once',
  );
});
