import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../helper.js';

// GET /apps/{appId}/subscribers/export (docs/sending.md, "Taking your subscribers out").
const ctx = await buildTestApp(t, { RATE_LIMIT_API_KEY_MAX: '100000', RATE_LIMIT_REGISTER_MAX: '1000' });
const { app } = ctx;
const sql = ctx.database.sql;

type Owner = Awaited<ReturnType<typeof ownerWithKey>>;

const exportOf = (owner: Owner, query = '', appId = owner.app.id) =>
  app.inject({
    method: 'GET',
    url: `/api/v1/apps/${appId}/subscribers/export${query}`,
    headers: bearer(owner.user.token),
  });

/** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes; throws on anything else. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field');
        field += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          field += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
    } else {
      const end = text.slice(i).search(/[,\r"\n]/);
      field = end < 0 ? text.slice(i) : text.slice(i, i + end);
      if (field.includes('"')) throw new Error('a quote in an unquoted field');
      i = end < 0 ? text.length : i + end;
    }
    fields.push(field);
    if (text[i] === ',') {
      i++;
    } else if (text.startsWith('\r\n', i)) {
      records.push(fields);
      fields = [];
      i += 2;
    } else {
      throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
    }
  }
  if (fields.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

const subscribe = async (owner: Owner, payload: object) => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(owner.secret),
    payload,
  });
  if (response.statusCode !== 201) throw new Error(`subscribe: ${response.statusCode} ${response.body}`);
  return (response.json() as { subscriber: { id: string } }).subscriber.id;
};

t.test('CSV: the header, one row per subscription, RFC 4180 quoting', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  const awkward = {
    ...fakeSubscription(),
    uid: 'Doe, "Jane"\r\nsecond line',
    tags: { 'plan.v2': 'pro, "gold"', note: 'a\nb' },
    language: 'ja-JP',
    timeZone: 'Asia/Tokyo',
  };
  const plain = fakeSubscription();
  const awkwardId = await subscribe(owner, awkward);
  const plainId = await subscribe(owner, plain);
  await sql`update subscriptions set status = 'expired', expired_at = now() where id = ${plainId}`;

  const response = await exportOf(owner);
  t.equal(response.statusCode, 200);
  t.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
  t.match(
    response.headers['content-disposition'],
    /^attachment; filename="subscribers-[0-9a-f-]+-\d{4}-\d\d-\d\d\.csv"$/,
  );
  const records = parseCsv(response.body);
  t.strictSame(records[0], ['id', 'endpoint', 'status', 'uid', 'tags', 'language', 'timeZone', 'createdAt']);
  t.equal(records.length, 3, 'a header and two rows, expired ones included');
  const byId = new Map(records.slice(1).map((record) => [record[0], record]));
  const [row] = await sql<
    { createdAt: Date }[]
  >`select created_at as "createdAt" from subscriptions where id = ${awkwardId}`;
  const fields = byId.get(awkwardId) ?? [];
  t.strictSame(
    fields.toSpliced(4, 1),
    [
      awkwardId,
      awkward.endpoint,
      'active',
      awkward.uid,
      'ja-JP',
      'Asia/Tokyo',
      new Date(row?.createdAt ?? 0).toISOString(),
    ],
    'every field but the tags, as stored',
  );
  t.strictSame(JSON.parse(fields[4] ?? ''), awkward.tags, 'tags as JSON');
  t.match(byId.get(plainId), [plainId, plain.endpoint, 'expired', '', '{}', '', '']);
  t.ok(response.body.includes('"Doe, ""Jane""\r\nsecond line"'), 'quotes doubled, the field quoted');
});

t.test('an app without subscribers is the header alone; another tenant’s app is NOT_FOUND', async (t) => {
  const owner = await ownerWithKey(app);
  const stranger = await ownerWithKey(app);
  await subscribe(stranger, fakeSubscription());
  const empty = await exportOf(owner);
  t.equal(empty.body, 'id,endpoint,status,uid,tags,language,timeZone,createdAt\r\n');
  assertError(t, await exportOf(owner, '', stranger.app.id), 'NOT_FOUND');
  assertError(t, await exportOf(owner, '?format=jsonl', stranger.app.id), 'NOT_FOUND');
  assertError(t, await exportOf(owner, '', 'not-a-uuid'), 'NOT_FOUND');
  assertError(t, await exportOf(owner, '?format=xml'), 'INVALID_INPUT');
  assertError(
    t,
    await app.inject({
      method: 'GET',
      url: `/api/v1/apps/${owner.app.id}/subscribers/export`,
      headers: bearer(owner.secret),
    }),
    'INVALID_SESSION',
  );
  assertError(
    t,
    await app.inject({ method: 'GET', url: `/api/v1/apps/${owner.app.id}/subscribers/export` }),
    'UNAUTHORIZED',
  );
});

t.test('JSON lines carry the keys of the active subscriptions, and import elsewhere as they are', async (t) => {
  const owner = await ownerWithKey(app, 'notify');
  const kept = { ...fakeSubscription(), uid: 'u-1', tags: { lang: 'ja' } };
  const gone = fakeSubscription();
  await subscribe(owner, kept);
  const goneId = await subscribe(owner, gone);
  await sql`update subscriptions set status = 'expired', expired_at = now() where id = ${goneId}`;

  const response = await exportOf(owner, '?format=jsonl');
  t.equal(response.statusCode, 200);
  t.equal(response.headers['content-type'], 'application/x-ndjson; charset=utf-8');
  t.match(response.headers['content-disposition'], /\.jsonl"$/);
  const lines = response.body.split('\n');
  t.equal(lines.pop(), '', 'each line ends with a newline');
  t.equal(lines.length, 1, 'only the active subscription');
  const line = JSON.parse(lines[0] ?? '');
  t.match(line, {
    endpoint: kept.endpoint,
    keys: { p256dh: kept.p256dh, auth: kept.auth },
    uid: 'u-1',
    tags: { lang: 'ja' },
    vapidPublicKey: owner.app.vapidPublicKey,
    createdAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
  });

  const target = await ownerWithKey(app);
  const imported = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${target.app.id}/subscribers/import`,
    headers: bearer(target.user.token),
    payload: { subscribers: lines.map((text) => JSON.parse(text)) },
  });
  t.strictSame(imported.json(), { imported: 1, updated: 0, rejected: [] }, 'the export is an import body');

  const logOf = async (of: Owner) =>
    (
      await app.inject({
        method: 'GET',
        url: `/api/v1/apps/${of.app.id}/audit-log`,
        headers: bearer(of.user.token),
      })
    ).json() as { entries: { action: string; actor: { type: string; id: string }; details?: unknown }[] };
  const exported = (await logOf(owner)).entries.filter((entry) => entry.action === 'subscribers.keys_exported');
  t.equal(exported.length, 1, 'taking the keys out is in the audit log');
  t.match(exported[0]?.actor, { type: 'user', id: owner.user.user.id });
  const csvOnly = await ownerWithKey(app);
  await exportOf(csvOnly);
  t.same(
    (await logOf(csvOnly)).entries.filter((entry) => entry.action === 'subscribers.keys_exported'),
    [],
    'the CSV, without keys, is not',
  );
  const importedEntries = (await logOf(target)).entries.filter((entry) => entry.action === 'subscribers.imported');
  t.equal(importedEntries.length, 1, 'the import is in the target app’s audit log');
  t.match(importedEntries[0]?.details, { imported: 1, updated: 0, refused: 0 });
});

t.test('a large app streams, chunk by chunk, in creation order', async (t) => {
  const owner = await ownerWithKey(app);
  const rows = 20_000;
  await sql`
    insert into subscriptions (app_id, endpoint, p256dh, auth, uid, created_at)
    select ${owner.app.id}, 'https://fcm.googleapis.com/fcm/send/bulk-' || g, 'p', 'a', 'uid,' || g,
      now() - make_interval(secs => ${rows} - g)
    from generate_series(1, ${rows}::int) g`;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const { headers, chunks, text } = await new Promise<{
    headers: Record<string, unknown>;
    chunks: number;
    text: string;
  }>((resolve, reject) => {
    const req = request(
      {
        port,
        host: '127.0.0.1',
        path: `/api/v1/apps/${owner.app.id}/subscribers/export`,
        headers: bearer(owner.user.token),
      },
      (res) => {
        let count = 0;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          count++;
          body += chunk;
        });
        res.on('end', () => resolve({ headers: res.headers, chunks: count, text: body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  t.equal(headers['transfer-encoding'], 'chunked', 'streamed: no length known in advance');
  t.equal(headers['content-length'], undefined);
  t.ok(chunks > 5, `arrived in ${chunks} chunks`);
  const records = parseCsv(text);
  t.equal(records.length, rows + 1);
  t.strictSame(
    records.slice(1, 4).map((record) => record[3]),
    ['uid,1', 'uid,2', 'uid,3'],
    'oldest first',
  );
  t.equal(records.at(-1)?.[3], `uid,${rows}`);
});
