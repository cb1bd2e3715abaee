import { fakeSubscription } from '@webpush/testing';
import t from 'tap';
import {
  checkPage,
  createAppInPage,
  launchChromium,
  openDashboard,
  signUp,
  startDashboard,
  uniqueEmail,
} from './harness.js';

/*
 * The subscribers page's import in real Chromium against the real API: a small JSON lines file is
 * checked in the browser, sent, stored, and summed up with the refused line named; a malformed CSV
 * names its line and sends nothing; a file over one batch shows its progress and the plan limit's
 * refusals by line. axe and 375 px, in English and Japanese.
 */

const SHOTS = 'subscriber-import';

const browser = await launchChromium(t);
if (browser) {
  const { ctx, url } = await startDashboard(t);
  const sql = ctx.database.sql;
  const { page, problems } = await openDashboard(t, browser);
  await signUp(page, url, uniqueEmail('import'));
  const appId = await createAppInPage(page, 'Import shop');
  await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Subscribers' }).click();
  const fileInput = page.getByLabel('Subscriber file');
  await fileInput.waitFor();

  let requests = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/subscribers/import')) requests++;
  });

  await t.test('a JSON lines file: imported, with a refusal named by its line', async (t) => {
    const good = [fakeSubscription(), fakeSubscription()];
    const lines = [
      ...good.map((s, i) =>
        JSON.stringify({
          endpoint: s.endpoint,
          expirationTime: null,
          keys: { p256dh: s.p256dh, auth: s.auth },
          ...(i === 0 ? { tags: { plan: 'gold' } } : {}),
        }),
      ),
      '',
      JSON.stringify({
        endpoint: 'https://push.evil.example/x',
        keys: { p256dh: good[0]?.p256dh, auth: good[0]?.auth },
      }),
    ];
    await fileInput.setInputFiles({
      name: 'subs.jsonl',
      mimeType: 'application/x-ndjson',
      buffer: Buffer.from(lines.join('\n')),
    });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const summary = page.getByTestId('import-summary');
    await summary.getByText('Import finished: 2 new, 0 updated, 1 refused.').waitFor();
    t.match(
      await summary.textContent(),
      /INVALID_ENDPOINT\s*1 refused \(lines 4\)/,
      'the refused entry by its file line',
    );
    const rows = await sql<{ endpoint: string; tags: Record<string, string> }[]>`
      select endpoint, tags from subscriptions where app_id = ${appId} order by endpoint`;
    t.same(rows.map((row) => row.endpoint).sort(), good.map((s) => s.endpoint).sort(), 'both stored');
    t.same(rows.find((row) => row.endpoint === good[0]?.endpoint)?.tags, { plan: 'gold' });
    t.equal(requests, 1, 'one batch');
    await checkPage(t, page, SHOTS, 'import-done-en');
  });

  await t.test('a malformed CSV names its line and sends nothing', async (t) => {
    requests = 0;
    const s = fakeSubscription();
    const csv = `endpoint,p256dh,auth,uid,tags\r\n${s.endpoint},${s.p256dh},${s.auth},u-1,\r\n${s.endpoint}2,${s.p256dh}\r\n`;
    await fileInput.setInputFiles({ name: 'subs.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Line 3' });
    await alert.waitFor();
    t.equal(
      await alert.textContent(),
      'Line 3 does not have the columns endpoint,p256dh,auth[,uid,tags]. Nothing was sent.',
    );
    t.equal(requests, 0, 'no request');
    const [count] = await sql<{ n: number }[]>`select count(*)::int as n from subscriptions where app_id = ${appId}`;
    t.equal(count?.n, 2, 'nothing more stored');
    await checkPage(t, page, SHOTS, 'import-malformed-en');

    await page.getByRole('button', { name: '日本語' }).click();
    await page
      .getByLabel('購読者ファイル')
      .setInputFiles({ name: 'subs.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'インポート', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: '3 行目の列が' }).waitFor();
    await checkPage(t, page, SHOTS, 'import-malformed-ja');
    t.equal(requests, 0);
  });

  await t.test('a file over one batch shows its progress, then the plan limit per line (Japanese)', async (t) => {
    requests = 0;
    // One batch is 10,000 entries: the second request is held until the progress has been looked at.
    const entries = 10_001;
    const keys = fakeSubscription();
    const csv = Array.from(
      { length: entries },
      (_, i) => `https://fcm.googleapis.com/fcm/send/big-${i},${keys.p256dh},${keys.auth}`,
    );
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let batches = 0;
    await page.route('**/subscribers/import', async (route) => {
      batches++;
      if (batches === 2) await held;
      await route.continue();
    });
    t.teardown(() => page.unroute('**/subscribers/import'));
    await page.getByLabel('購読者ファイル').setInputFiles({
      name: 'big.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`endpoint,p256dh,auth\n${csv.join('\n')}\n`),
    });
    await page.getByRole('button', { name: 'インポート', exact: true }).click();
    const progress = page.getByRole('status').filter({ hasText: /10,?001 件中 10,?000 件を送信しました/ });
    await progress.waitFor();
    t.equal(await page.getByRole('progressbar', { name: 'インポートの進捗' }).getAttribute('value'), '10000');
    await checkPage(t, page, SHOTS, 'import-progress-ja');
    release();

    const summary = page.getByTestId('import-summary');
    // A Free app holds 1,000 and has 2 from the first file: 998 new, the rest refused in file order.
    await summary.getByText(/新規 998 件、更新 0 件、拒否 9,?003 件/).waitFor();
    t.match(await summary.textContent(), /SUBSCRIBER_LIMIT_EXCEEDED\s*9,?003 件を拒否（1,?000, 1,?001, /);
    t.equal(requests, 2, 'two batches');
    const [count] = await sql<{ n: number }[]>`select count(*)::int as n from subscriptions where app_id = ${appId}`;
    t.equal(count?.n, 1_000, 'the plan limit');
    await checkPage(t, page, SHOTS, 'import-done-ja');
    t.same(problems, [], 'no CSP violation or page error');
  });
}
