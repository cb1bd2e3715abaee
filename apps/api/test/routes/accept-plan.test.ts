import { acceptNotification, createDatabase, type NewNotification } from '@webpush/db';
import t from 'tap';
import { buildTestApp, ownerWithKey } from '../helper.js';

// The accept statement is a prepared statement, and PostgreSQL's plan cache
// switches a prepared statement to its generic plan after five executions when that plan looks no
// dearer than the custom ones. With the audience count inline, five sends of a large app made that
// switch on a connection, and the generic plan of `count(*) … where app_id = $1` is a sequential
// scan of every app's subscriptions: from then on every small app's accept on that connection read
// the whole table. The count now sits behind a function: `count_active_subscribers` for a send to
// every subscriber, whose one cached plan may only use an index (migration 0025), and
// `count_active_targets`, planned on each call, for `uids` and `tags` (migration 0012). This checks
// what PostgreSQL did, in its statistics: no sequential scan of `subscriptions` for a small app's
// accepts after a large app's, on one connection.
const ctx = await buildTestApp(t);
const sql = ctx.database.sql;
const large = await ownerWithKey(ctx.app, 'notify');
const small = await ownerWithKey(ctx.app, 'notify');
const LARGE = 3_000;
await sql`
  insert into subscriptions (app_id, endpoint, p256dh, auth)
  select ${large.app.id}::uuid, 'https://fcm.googleapis.com/fcm/send/large-' || n, 'p256dh-' || n, 'auth-' || n
  from generate_series(1, ${LARGE}) as n`;
await sql`
  insert into subscriptions (app_id, endpoint, p256dh, auth)
  values (${small.app.id}::uuid, 'https://fcm.googleapis.com/fcm/send/small-1', 'p256dh-small', 'auth-small')`;
await sql`analyze subscriptions`;

// One connection, so every execution below goes through the same plan cache.
const one = createDatabase(ctx.resources.databaseUrl, { max: 1 });
t.teardown(() => one.close());

const input: NewNotification = {
  payload: { title: 'Plan', body: 'cache' },
  ttl: 60,
  urgency: 'normal',
  topic: null,
  target: { kind: 'all' },
  idempotencyKey: null,
  sendAt: null,
};
const accept = async (owner: typeof large) => {
  const result = await acceptNotification(one.db, owner.user.user.id, owner.app.id, input, null, ({ id, targets }) => ({
    notification: { id, targets },
  }));
  if (result.kind !== 'accepted') throw new Error(`not accepted: ${result.kind}`);
  return result.notification.targets;
};

/** Sequential scans of `subscriptions` so far, as this connection's statistics report them. */
async function sequentialScans(): Promise<number> {
  await one.sql`select pg_stat_force_next_flush()`;
  const [row] = await one.sql<{ n: number }[]>`
    select seq_scan::int as n from pg_stat_user_tables where relname = 'subscriptions'`;
  return row?.n ?? -1;
}

t.test("a small app's accept does not scan a large app's subscriptions, after the large app sent", async (t) => {
  for (let i = 0; i < 8; i++) t.equal(await accept(large), LARGE, `large app send ${i + 1} counts every target`);
  const before = await sequentialScans();
  for (let i = 0; i < 20; i++) t.equal(await accept(small), 1, `small app send ${i + 1} counts its one target`);
  t.equal(await sequentialScans(), before, 'no sequential scan of subscriptions');
});

t.test("a uids or tags count is planned for each app: a small app's does not scan either", async (t) => {
  const audiences: NewNotification['target'][] = [
    { kind: 'uids', uids: ['someone'] },
    { kind: 'tags', tags: { plan: 'pro' } },
  ];
  for (const target of audiences) {
    const send = async (owner: typeof large) => {
      const result = await acceptNotification(
        one.db,
        owner.user.user.id,
        owner.app.id,
        { ...input, target },
        null,
        ({ id, targets }) => ({ notification: { id, targets } }),
      );
      if (result.kind !== 'accepted') throw new Error(`not accepted: ${result.kind}`);
      return result.notification.targets;
    };
    for (let i = 0; i < 8; i++) await send(large);
    const before = await sequentialScans();
    for (let i = 0; i < 10; i++) t.equal(await send(small), 0, `${target.kind}: small app send ${i + 1} counts no one`);
    t.equal(await sequentialScans(), before, `${target.kind}: no sequential scan of subscriptions`);
  }
});
