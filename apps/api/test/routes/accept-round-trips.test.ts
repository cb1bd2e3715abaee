import t from 'tap';
import { bearer, buildTestApp, fakeSubscription, notTheRequestsOwn, ownerWithKey } from '../helper.js';

// POST /notify costs at most two PostgreSQL statements in all: the API-key
// lookup and the accept statement (idempotency replay, count, monthly reservation and insert in
// one). Counted with the postgres.js `debug` hook, which sees every statement the API sends.
const statements: string[] = [];
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000' }, { onQuery: (query) => statements.push(query) });
const { app } = ctx;
const sql = ctx.database.sql;

const owner = await ownerWithKey(app, 'notify');
for (const uid of ['alice', 'bob']) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload: { ...fakeSubscription(), uid, tags: { lang: uid === 'alice' ? 'ja' : 'en' } },
  });
  if (response.statusCode !== 201) throw new Error(`subscribe failed: ${response.body}`);
}

const monthlyUsage = async () => {
  const [row] = await sql`select sends::int as sends from monthly_usage
    where user_id = ${owner.user.user.id} and month = date_trunc('month', now() at time zone 'UTC')::date`;
  return (row?.sends as number | undefined) ?? 0;
};

/** POST /notify, and the statements it sent. */
async function notifyCounted(payload: object, headers: Record<string, string> = {}) {
  statements.length = 0;
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: { ...bearer(owner.secret), ...headers },
    payload,
  });
  return { response, sent: statements.filter((query) => !notTheRequestsOwn(query)) };
}

const cases: [string, object, number][] = [
  ['every active subscriber', { title: 'All', body: 'b' }, 2],
  ['uids', { title: 'Uids', body: 'b', uids: ['alice', 'carol'] }, 1],
  ['tags', { title: 'Tags', body: 'b', tags: { lang: 'en' } }, 1],
];
for (const [name, payload, targets] of cases) {
  t.test(`an immediate send to ${name}: two statements, the accept one of them`, async (t) => {
    const before = await monthlyUsage();
    const { response, sent } = await notifyCounted(payload);
    t.equal(response.statusCode, 202, response.body);
    t.equal((response.json() as { notification: { targets: number } }).notification.targets, targets);
    t.ok(sent.length <= 2, `${sent.length} statements: ${sent.join(' | ')}`);
    t.equal(sent.filter((query) => /insert into notifications/i.test(query)).length, 1, 'one accept statement');
    t.equal(await monthlyUsage(), before + targets, 'targets reserved in the same statement');
  });
}

t.test('an Idempotency-Key: the first request and its replay each take two statements', async (t) => {
  const headers = { 'idempotency-key': 'round-trips-1' };
  const first = await notifyCounted({ title: 'Once', body: 'b' }, headers);
  t.equal(first.response.statusCode, 202);
  t.ok(first.sent.length <= 2, `first: ${first.sent.length} statements: ${first.sent.join(' | ')}`);
  const usage = await monthlyUsage();

  const replay = await notifyCounted({ title: 'Once', body: 'b' }, headers);
  t.equal(replay.response.statusCode, 202);
  t.equal(replay.response.headers['idempotent-replayed'], 'true');
  t.strictSame(replay.response.json(), first.response.json(), 'the first answer, targets included');
  t.ok(replay.sent.length <= 2, `replay: ${replay.sent.length} statements: ${replay.sent.join(' | ')}`);
  t.equal(await monthlyUsage(), usage, 'a replay reserves nothing');
  const [row] = await sql`select count(*)::int as n from notifications where idempotency_key = 'round-trips-1'`;
  t.equal(row?.n, 1, 'one notification for the key');
});

t.test('a scheduled send: two statements, nothing reserved', async (t) => {
  const before = await monthlyUsage();
  const sendAt = new Date(Date.now() + 3_600_000).toISOString();
  const { response, sent } = await notifyCounted({ title: 'Later', body: 'b', sendAt });
  t.equal(response.statusCode, 202);
  t.match(response.json(), { notification: { status: 'scheduled', targets: 0 } });
  t.ok(sent.length <= 2, `${sent.length} statements: ${sent.join(' | ')}`);
  t.equal(await monthlyUsage(), before);
});
