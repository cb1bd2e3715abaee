// postgres.js 3.4.9 is patched (patches/postgres@3.4.9.patch): its pool queue kept one empty slot
// per query while two or more connections sat idle, and scanned every slot on every query; and the
// pool took the connection idle longest, so sequential queries woke every backend in turn. These
// tests watch the arrays the queue searches, through `Array.prototype.indexOf`, which its `remove`
// uses: unpatched, the longest one grows with the number of queries run.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import t from 'tap';

const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The length of the longest array `indexOf` searched for one of `needles` while `run` ran. */
async function longestSearch(needles: (item: unknown) => boolean, run: () => Promise<void> | void): Promise<number> {
  const original = Array.prototype.indexOf;
  let longest = 0;
  Array.prototype.indexOf = function (this: unknown[], item: unknown, from?: number) {
    if (needles(item)) longest = Math.max(longest, this.length);
    return original.call(this, item, from);
  };
  try {
    await run();
  } finally {
    Array.prototype.indexOf = original;
  }
  return longest;
}

type Queue<T> = { readonly length: number; push(x: T): T; shift(): T; pop(): T | undefined; remove(x: T): T | null };

t.test('the queue stays as short as what it holds when items cycle through it', async (t) => {
  // The module the pool uses, resolved the way `import 'postgres'` is (package main: src/index.js).
  const main = createRequire(import.meta.url).resolve('postgres');
  const srcDir = main.includes(`${join('cjs', 'src')}`) ? join(dirname(main), '..', '..', 'src') : dirname(main);
  const { default: Queue } = (await import(pathToFileURL(join(srcDir, 'queue.js')).href)) as {
    default: <T>() => Queue<T>;
  };

  // The pool's pattern: take an idle connection (shift), move it to busy (remove from idle, where it
  // no longer is), and back to idle when its query ends, with two more connections idle throughout.
  const open = Queue<{ id: number }>();
  const busy = Queue<{ id: number }>();
  const connections = [{ id: 1 }, { id: 2 }, { id: 3 }];
  for (const c of connections) open.push(c);
  const isConnection = (item: unknown) => connections.includes(item as { id: number });
  const order: number[] = [];
  let removedFromBusy = 0;
  const longest = await longestSearch(isConnection, () => {
    for (let i = 0; i < 5_000; i++) {
      const c = open.shift();
      order.push(c.id);
      open.remove(c);
      busy.push(c);
      if (busy.remove(c) === c) removedFromBusy++;
      open.push(c);
    }
  });
  t.equal(open.length, 3, 'every connection is back in the idle queue');
  t.equal(removedFromBusy, 5_000, 'every connection was found in the busy queue');
  t.ok(
    order.every((id, i) => id === (i % 3) + 1),
    'first in, first out: the connections take turns 1, 2, 3, before and after the front is compacted',
  );
  t.ok(longest <= 200, `the longest array searched had ${longest} slots (5,000 cycles; unpatched: ~5,000)`);

  // Removing from the middle still works after the front was compacted away.
  const q = Queue<number>();
  for (let i = 0; i < 300; i++) q.push(i);
  for (let i = 0; i < 200; i++) q.shift();
  t.equal(q.remove(250), 250);
  t.equal(q.remove(10), null, 'an item already taken is not found');
  t.equal(q.length, 99);
  t.equal(q.shift(), 200);

  // `pop` (the pool takes the idle connection used last) after the front was compacted, to empty.
  t.equal(q.pop(), 299);
  t.equal(q.length, 97);
  const rest: number[] = [];
  for (let item = q.pop(); item !== undefined; item = q.pop()) rest.push(item);
  t.equal(rest.length, 97, 'pop takes every item left');
  t.equal(rest[0], 298);
  t.equal(rest.at(-1), 201);
  t.equal(q.length, 0);
  t.equal(q.pop(), undefined, 'an empty queue pops nothing');
  q.push(7);
  t.equal(q.shift(), 7, 'and takes items again after');
});

t.test(
  'the pool gives a query the idle connection used last, so one-at-a-time queries stay on one backend',
  async (t) => {
    const sql = postgres(adminUrl, { max: 3, onnotice: () => {} });
    t.teardown(() => sql.end({ timeout: 5 }));
    const pidsTogether = await Promise.all(
      [0, 1, 2].map(() => sql<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.05)`),
    );
    t.equal(new Set(pidsTogether.map(([row]) => row?.pid)).size, 3, 'three connections open');
    const pids = new Set<number | undefined>();
    for (let i = 0; i < 30; i++) pids.add((await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]?.pid);
    // Unpatched, the pool took the connection idle longest: the 30 queries went round all three.
    t.equal(pids.size, 1, `one backend answered every sequential query (${[...pids].join(', ')})`);
  },
);

t.test('a real pool with idle connections keeps its queues short over thousands of queries', async (t) => {
  const sql = postgres(adminUrl, { max: 3, onnotice: () => {} });
  t.teardown(() => sql.end({ timeout: 5 }));
  // Open all three connections, then query one at a time: two always sit idle.
  await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`]);
  const isConnection = (item: unknown) =>
    typeof item === 'object' && item !== null && 'execute' in item && 'queue' in item;
  const longest = await longestSearch(isConnection, async () => {
    for (let i = 0; i < 3_000; i++) await sql`select 1`;
  });
  t.ok(longest > 0, 'the pool moved its connections between queues');
  t.ok(longest <= 200, `the longest pool queue searched had ${longest} slots after 3,000 queries (unpatched: ~3,000)`);
});
