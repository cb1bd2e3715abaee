import { readFileSync } from 'node:fs';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXPORT_APPLICATION_NAME } from '@webpush/db/subscription-export';
import { waitFor } from '@webpush/testing';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey, subscribe } from '../helper.js';

// GET /apps/{appId}/subscribers/export while files are streaming: each is made on a thread with a
// database connection of its own, two at most at once, and whatever ends a download frees both.
const ctx = await buildTestApp(t);
const { app } = ctx;
const sql = ctx.database.sql;

const large = await ownerWithKey(app);
// Long uids make a file of about 100 MB: more than the sockets' buffers hold, so a client that
// stops reading keeps its export waiting.
await sql`
  insert into subscriptions (app_id, endpoint, p256dh, auth, uid)
  select ${large.app.id}, 'https://fcm.googleapis.com/fcm/send/held-' || g, 'p', 'a', repeat('u', 2000)
  from generate_series(1, 50000) g`;
const small = await ownerWithKey(app, 'notify');
await subscribe(app, small.secret, fakeSubscription());

await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;

interface Download {
  request: ClientRequest;
  response: IncomingMessage;
}

/** A download of the large app whose client takes the headers and then reads nothing. */
const heldDownload = (query = '') =>
  new Promise<Download>((resolve, reject) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        path: `/api/v1/apps/${large.app.id}/subscribers/export${query}`,
        headers: bearer(large.user.token),
      },
      (response) => {
        response.pause();
        // Ending the download from this side (or the server cutting it) is what the tests do.
        response.on('error', () => {});
        resolve({ request: req, response });
      },
    );
    req.on('error', reject);
    req.end();
  });

const exportOf = (owner: typeof small) =>
  app.inject({
    method: 'GET',
    url: `/api/v1/apps/${owner.app.id}/subscribers/export`,
    headers: bearer(owner.user.token),
  });

const exportConnections = async () => {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from pg_stat_activity
    where datname = current_database() and application_name = ${EXPORT_APPLICATION_NAME}`;
  return row?.count ?? 0;
};

/** The threads of this process (Linux): an export's thread, once ended, is not among them. */
const threads = () => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);

// Whatever the process starts once on first use (libuv's pool, V8's helpers) is started before counting.
t.equal((await exportOf(small)).statusCode, 200);
const threadsAtRest = threads();

/** The exports the API counts as streaming: a slot stays taken until its thread's exit has been seen. */
const exportsRunning = async () => (await app.metrics.subscriberExports.get()).values[0]?.value ?? 0;

const allEnded = async () => {
  await waitFor(async () => (await exportConnections()) === 0, 'no export holds a database connection');
  await waitFor(() => threads() <= threadsAtRest, `the export threads ended (${threadsAtRest} threads at rest)`);
  // The slot is freed when the main thread sees the stream close, a moment after the thread has
  // gone (longer on a busy machine): the next test asks for both slots.
  await waitFor(async () => (await exportsRunning()) === 0, 'both slots free');
};

t.test('two at once; a third is RATE_LIMITED; clients that go away free their slots', async (t) => {
  const held = [await heldDownload(), await heldDownload()];
  t.strictSame(
    held.map(({ response }) => response.statusCode),
    [200, 200],
  );
  await waitFor(async () => (await exportConnections()) === 2, 'each export holds a connection of its own');
  t.equal(await exportsRunning(), 2, 'webpush_subscriber_exports_running counts both');
  const third = await exportOf(small);
  assertError(t, third, 'RATE_LIMITED');
  t.equal(third.headers['retry-after'], '10');

  for (const { request } of held) request.destroy();
  await allEnded();
  const again = [await heldDownload(), await heldDownload()];
  t.strictSame(
    again.map(({ response }) => response.statusCode),
    [200, 200],
    'both slots free again',
  );
  for (const { request } of again) request.destroy();
  await allEnded();
  t.equal((await exportOf(small)).statusCode, 200);
});

t.test('three key exports asked at the same moment: two stream, the third is RATE_LIMITED', async (t) => {
  // Each writes its audit entry before streaming: the slot is held while it does.
  const asked = await Promise.all([1, 2, 3].map(() => heldDownload('?format=jsonl')));
  t.strictSame(asked.map(({ response }) => response.statusCode).sort(), [200, 200, 429]);
  // Both running before they are ended, as above: then no export connection means both threads are gone.
  await waitFor(async () => (await exportConnections()) === 2, 'each key export holds a connection of its own');
  for (const { request } of asked) request.destroy();
  await allEnded();
});

t.test('the database ending the export mid-file cuts the download short and frees its slot', async (t) => {
  const download = await heldDownload();
  await waitFor(async () => (await exportConnections()) === 1, 'the export holds its connection');
  await sql`
    select pg_terminate_backend(pid) from pg_stat_activity
    where datname = current_database() and application_name = ${EXPORT_APPLICATION_NAME}`;
  const complete = new Promise<boolean>((resolve) => {
    download.response.once('close', () => resolve(download.response.complete));
  });
  download.response.resume();
  t.equal(await complete, false, 'the file is not passed off as whole');
  await allEnded();
  const again = [await heldDownload(), await heldDownload()];
  t.strictSame(
    again.map(({ response }) => response.statusCode),
    [200, 200],
    'both slots free',
  );
  for (const { request } of again) request.destroy();
  await allEnded();
});

t.test('closing the API ends the downloads it streams and their threads', async (t) => {
  const download = await heldDownload();
  await waitFor(async () => (await exportConnections()) === 1, 'the export holds its connection');
  const cut = new Promise<boolean>((resolve) => {
    download.response.once('close', () => resolve(download.response.complete));
  });
  download.response.resume();
  await app.close();
  t.equal(await cut, false, 'the download ended unfinished');
  await allEnded();
});
