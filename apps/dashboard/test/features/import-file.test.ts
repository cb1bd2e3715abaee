import t from 'tap';
import {
  BATCH_ENTRIES,
  batchesOf,
  ImportFileError,
  parseImportFile,
} from '../../src/features/subscribers/import-file.js';

const sub = (n: number) => ({ endpoint: `https://fcm.googleapis.com/fcm/send/${n}`, p256dh: `P${n}`, auth: `A${n}` });

t.test('JSON lines of PushSubscription.toJSON() and of the export with keys', async (t) => {
  const text = [
    JSON.stringify({ endpoint: sub(1).endpoint, expirationTime: null, keys: { p256dh: 'P1', auth: 'A1' } }),
    '',
    JSON.stringify({
      endpoint: sub(2).endpoint,
      keys: { p256dh: 'P2', auth: 'A2' },
      uid: 'u',
      tags: { a: 'b' },
      vapidPublicKey: 'x',
      createdAt: 'y',
    }),
  ].join('\n');
  const parsed = parseImportFile(text);
  t.same(parsed.entries, [
    { endpoint: sub(1).endpoint, keys: { p256dh: 'P1', auth: 'A1' } },
    { endpoint: sub(2).endpoint, keys: { p256dh: 'P2', auth: 'A2' }, uid: 'u', tags: { a: 'b' } },
  ]);
  t.same(parsed.lines, [1, 3]);
});

t.test('CSV with a header, without one, quoted fields and JSON tags', async (t) => {
  const withHeader = `\uFEFFendpoint,p256dh,auth,uid,tags\r\n${sub(1).endpoint},P1,A1,u-1,"{""plan"":""gold""}"\r\n${sub(2).endpoint},P2,A2\r\n`;
  t.same(parseImportFile(withHeader).entries, [
    { endpoint: sub(1).endpoint, keys: { p256dh: 'P1', auth: 'A1' }, uid: 'u-1', tags: { plan: 'gold' } },
    { endpoint: sub(2).endpoint, keys: { p256dh: 'P2', auth: 'A2' } },
  ]);
  const bare = `${sub(3).endpoint},P3,A3\n`;
  t.same(parseImportFile(bare).entries, [{ endpoint: sub(3).endpoint, keys: { p256dh: 'P3', auth: 'A3' } }]);
});

t.test('a malformed file names its line', async (t) => {
  const problem = (text: string) => {
    try {
      parseImportFile(text);
      return null;
    } catch (error) {
      return error instanceof ImportFileError ? { line: error.line, problem: error.problem } : error;
    }
  };
  t.same(problem(`{"endpoint":"x","keys":{"p256dh":"p","auth":"a"}}\n{oops`), { line: 2, problem: 'notJson' });
  t.same(problem(`{"endpoint":"x","keys":{"p256dh":"p","auth":"a"}}\n[1]`), { line: 2, problem: 'notObject' });
  t.same(problem(`{"endpoint":"x","keys":{"p256dh":"p"}}`), { line: 1, problem: 'missingFields' });
  t.same(problem(`endpoint,p256dh,auth\nx,p,a\nx,p`), { line: 3, problem: 'columns' });
  t.same(problem(`x,p,a,u,"{bad"\n`), { line: 1, problem: 'badTags' });
  t.same(problem(`x,p,a\nx,"p\n`), { line: 2, problem: 'quote' });
  t.same(problem(`id,endpoint,status,uid,tags,language,timeZone,createdAt\r\n1,x,active,,{},,,z\r\n`), {
    line: 1,
    problem: 'csvExportWithoutKeys',
  });
  t.same(problem('\n\n'), { line: 1, problem: 'empty' });
});

t.test('batches stay within 10,000 entries and the body limit', async (t) => {
  const entries = Array.from({ length: 25_001 }, (_, n) => ({
    endpoint: sub(n).endpoint,
    keys: { p256dh: 'P', auth: 'A' },
  }));
  const batches = batchesOf(entries);
  t.same(
    batches.map((b) => b.end - b.start),
    [BATCH_ENTRIES, BATCH_ENTRIES, 5_001],
  );
  const big = Array.from({ length: 10_000 }, (_, n) => ({
    endpoint: `${sub(n).endpoint}/${'x'.repeat(500)}`,
    keys: { p256dh: 'P', auth: 'A' },
  }));
  const bigBatches = batchesOf(big);
  t.ok(bigBatches.length > 1, 'large entries split before 10,000');
  for (const { start, end } of bigBatches) {
    t.ok(Buffer.byteLength(JSON.stringify({ subscribers: big.slice(start, end) })) < 4 * 1024 * 1024);
  }
});
