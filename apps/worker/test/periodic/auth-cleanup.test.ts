import { registerUser, waitFor } from '@webpush/testing';
import { pino } from 'pino';
import t from 'tap';
import { startWorker } from '../../src/worker.js';
import { buildTestApp } from '../helper.js';

// The periodic removal of expired sessions and spent account tokens, run by the worker.
const ctx = await buildTestApp(t, { RATE_LIMIT_REGISTER_MAX: '1000', CLEANUP_INTERVAL_MS: '1000' });
const { app, config, database } = ctx;
const sql = database.sql;

async function seed(userId: string, label: string) {
  await sql`insert into sessions (user_id, token_hash, expires_at) values
    (${userId}, ${`${label}-live`}, now() + interval '1 day'),
    (${userId}, ${`${label}-expired`}, now() - interval '1 second')`;
  await sql`insert into account_tokens (user_id, purpose, token_hash, expires_at, used_at) values
    (${userId}, 'verify_email', ${`${label}-t-live`}, now() + interval '1 hour', null),
    (${userId}, 'reset_password', ${`${label}-t-expired`}, now() - interval '1 second', null),
    (${userId}, 'reset_password', ${`${label}-t-used`}, now() + interval '1 hour', now()),
    (${userId}, 'verify_email', ${`${label}-t-verified`}, now() + interval '1 hour', now())`;
}

const hashes = async () => ({
  sessions: (await sql<{ token_hash: string }[]>`select token_hash from sessions order by token_hash`).map(
    (row) => row.token_hash,
  ),
  tokens: (await sql<{ token_hash: string }[]>`select token_hash from account_tokens order by token_hash`).map(
    (row) => row.token_hash,
  ),
});

t.test('a cleanup pass removes expired sessions and expired or used tokens, and nothing else', async (t) => {
  const user = await registerUser(app);
  await app.mailer.settled();
  await sql`delete from account_tokens`; // the registration's verification token (no SMTP here) is not under test
  const registered = (await hashes()).sessions;
  await seed(user.user.id, 'a');
  await seed(user.user.id, 'b');

  const worker = await startWorker(config, { log: pino({ level: 'silent' }) });
  t.teardown(() => worker.close());
  const removed = await worker.authCleanup.runOnce();
  t.strictSame(removed, { sessions: 2, accountTokens: 4 });
  t.strictSame(await hashes(), {
    sessions: [...registered, 'a-live', 'b-live'].sort(),
    // A used verification link is kept until it expires: opened again, the page says "verified".
    tokens: ['a-t-live', 'a-t-verified', 'b-t-live', 'b-t-verified'],
  });
  t.strictSame(await worker.authCleanup.runOnce(), { sessions: 0, accountTokens: 0 }, 'idempotent');
});

t.test('the timer runs passes by itself, and several workers at once do no harm', async (t) => {
  const user = await registerUser(app);
  await seed(user.user.id, 'c');
  const workers = [
    await startWorker(config, { log: pino({ level: 'silent' }) }),
    await startWorker(config, { log: pino({ level: 'silent' }) }),
  ];
  t.teardown(async () => {
    for (const worker of workers) await worker.close();
  });
  await waitFor(
    async () => {
      const { sessions, tokens } = await hashes();
      return !sessions.includes('c-expired') && !tokens.includes('c-t-expired') && !tokens.includes('c-t-used');
    },
    'the timer removes the expired session and the expired and used tokens',
    { timeoutMs: 10_000, intervalMs: 100 },
  );
  const { sessions, tokens } = await hashes();
  t.ok(sessions.includes('c-live'), 'the live session stays');
  t.ok(tokens.includes('c-t-live'), 'the live token stays');
  const passes = await Promise.all(workers.map((worker) => worker.authCleanup.runOnce()));
  t.strictSame(passes, [
    { sessions: 0, accountTokens: 0 },
    { sessions: 0, accountTokens: 0 },
  ]);
});

t.test('batches: more expired rows than one batch are all removed', async (t) => {
  const user = await registerUser(app);
  await sql`insert into sessions (user_id, token_hash, expires_at)
            select ${user.user.id}, 'bulk-' || g, now() - interval '1 hour' from generate_series(1, 2500) g`;
  const worker = await startWorker(config, { log: pino({ level: 'silent' }) });
  t.teardown(() => worker.close());
  const removed = await worker.authCleanup.runOnce();
  t.ok(removed.sessions >= 2500, `removed ${removed.sessions}`);
  const [row] = await sql`select count(*)::int as n from sessions where expires_at < now()`;
  t.equal(row?.n, 0);
});
