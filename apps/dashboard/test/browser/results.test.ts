import { startFakePushService, waitForValue } from '@webpush/testing';
import t from 'tap';
import {
  assertAccessible,
  assertNoHorizontalScroll,
  capture,
  launchChromium,
  openDashboard,
  screenshotDir,
  signUp,
  startDashboard,
  uniqueEmail,
  waitForSettled,
} from './harness.js';

/*
 * What a send did (docs/dashboard.md): the send form's A/B variants and sample, a segment built with
 * its live count and sent to in two languages, the app's time zone and frequency cap, a notification's
 * variants side by side with the winner marked, the overview's 7/30/90-day charts with their table,
 * and the CSV exports. Counts are set as the worker and the engagement flush would leave them, so
 * no push has to travel. Screenshots at 375 and 1440 px in both languages with SCREENSHOT_DIR set.
 */

const SHOTS = 'results-ui';
const LANGUAGES = ['ja', 'en'] as const;

const browser = await launchChromium(t);
t.setTimeout(180_000);
if (browser) {
  const push = await startFakePushService();
  t.teardown(() => push.close());
  const { ctx, url } = await startDashboard(t, { PUSH_SERVICE_HOSTS: push.hostRule }, { pushExtraCa: push.caPem });
  const sql = ctx.database.sql;
  const { page, context, problems } = await openDashboard(t, browser);
  let appId = '';
  let abId = '';
  let sampleId = '';

  /** A request from the page, with its session: what the dashboard itself would send. */
  const fromPage = (path: string, body?: unknown) =>
    page.evaluate(
      async ({ path, body }) => {
        const response = await fetch(path, {
          method: body === undefined ? 'GET' : 'POST',
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, type: response.headers.get('content-type') ?? '', text };
      },
      { path, body },
    );
  const setLanguage = (language: string) => context.addCookies([{ name: 'wp_lang', value: language, url }]);
  const open = async (path: string) => {
    await page.goto(`${url}${path}`);
    await page.locator('main h1, main h2').first().waitFor();
    await waitForSettled(page);
  };
  /** Both languages at 375 and 1440 px: no sideways scrolling, and a screenshot of each. */
  const shoot = async (name: string, path: string, ready: () => Promise<void>) => {
    for (const language of LANGUAGES) {
      await setLanguage(language);
      for (const width of [375, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        await open(path);
        await ready();
        if (width === 375) await assertNoHorizontalScroll(t, page, `${name} (${language}, 375 px)`);
        await capture(page, SHOTS, `${name}-${language}-${width}.png`);
      }
    }
    await setLanguage('en');
    await page.setViewportSize({ width: 1440, height: 900 });
  };

  await t.test('an app with subscribers, an A/B test with its winner and one whose sample runs', async (t) => {
    await signUp(page, url, uniqueEmail('results'));
    await page.getByLabel('Name').fill('Shop');
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('heading', { name: 'Shop' }).waitFor();
    appId = /\/apps\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    const key = JSON.parse((await fromPage(`/api/v1/apps/${appId}/keys`, { scope: 'full', name: 'CI' })).text);
    // One Japanese pro subscriber in Tokyo, one English one in New York: what segments tell apart.
    const attributes = [
      { language: 'ja-JP', timeZone: 'Asia/Tokyo', tags: { plan: 'pro' } },
      { language: 'en-US', timeZone: 'America/New_York' },
    ];
    for (const attribute of attributes) {
      const subscription = push.subscribe();
      const answer = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/subscribe',
        headers: { authorization: `Bearer ${key.secret}`, origin: url },
        payload: {
          endpoint: subscription.endpoint,
          p256dh: subscription.p256dh,
          auth: subscription.auth,
          ...attribute,
        },
      });
      t.equal(answer.statusCode, 201, `subscribed: ${answer.body}`);
    }
    const sends = `/api/v1/apps/${appId}/notifications`;
    const ab = await fromPage(sends, {
      title: '秋のセール',
      body: '全品 20% オフ',
      url: 'https://shop.example/sale',
      variants: [{ title: '本日限り：30% オフ', body: '今夜 0 時まで' }],
    });
    t.equal(ab.status, 202, ab.text);
    abId = JSON.parse(ab.text).notification.id;
    const sampled = await fromPage(sends, {
      title: 'Weekly digest',
      body: 'What happened this week',
      variants: [{ title: 'Your week in five minutes' }, { body: 'Five stories you missed' }],
      sample: 0.2,
      winnerAfterMinutes: 90,
    });
    t.equal(sampled.status, 202, sampled.text);
    sampleId = JSON.parse(sampled.text).notification.id;
    // As the worker and the engagement flush leave them: one test decided for B, one still sampling.
    await sql`update notifications set status = 'completed', targets = 20, sent = 20, shown = 17, clicked = 7,
      converted = 4, completed_at = now(), winner = 'B',
      variant_stats = ${JSON.stringify({
        A: { sent: 10, shown: 8, clicked: 2, converted: 1 },
        B: { sent: 10, shown: 9, clicked: 5, converted: 3 },
      })}::jsonb
      where id = ${abId}`;
    await sql`update notifications set status = 'sending', targets = 30, sent = 6, winner_at = now() + interval '90 minutes',
      variant_stats = ${JSON.stringify({ A: { sent: 2, clicked: 1 }, B: { sent: 2 }, C: { sent: 2 } })}::jsonb
      where id = ${sampleId}`;
  });

  await t.test('a notification shows its variants side by side and marks the winner', async (t) => {
    await open(`/apps/${appId}/notifications/${abId}`);
    const variants = page.getByTestId('variants');
    await variants.waitFor();
    const figures = async (name: string) =>
      variants
        .locator(`[data-variant="${name}"]`)
        .evaluate((card) =>
          Object.fromEntries(
            [...card.querySelectorAll<HTMLElement>('[data-figure]')].map((dd) => [dd.dataset.figure, dd.textContent]),
          ),
        );
    t.same(await figures('A'), { sent: '10', shown: '8', clicked: '2', ctr: '20%', converted: '1' });
    t.same(await figures('B'), { sent: '10', shown: '9', clicked: '5', ctr: '50%', converted: '3' });
    t.equal(await variants.locator('[data-variant="B"] h3').textContent(), 'Variant BWinner', 'B is marked');
    t.equal(await variants.locator('[data-variant="A"] .badge').count(), 0, 'A is not');
    t.match(await variants.locator('[data-variant="B"]').textContent(), /本日限り：30% オフ今夜 0 時まで/);
    t.match(await variants.locator('[data-variant="A"]').textContent(), /秋のセール全品 20% オフ/);
    t.equal(await page.getByTestId('choosing-winner').count(), 0, 'decided: no due time');
    await assertAccessible(t, page, 'variant comparison');

    // The report: a link the session downloads, with the API's CSV.
    const link = page.getByRole('link', { name: 'Export CSV' });
    const href = (await link.getAttribute('href')) ?? '';
    t.equal(href, `/api/v1/notifications/${abId}/report`);
    t.not(await link.getAttribute('download'), null, 'saved as a file');
    const report = await fromPage(href);
    t.equal(report.status, 200);
    t.match(report.type, /^text\/csv/);
    t.match(report.text, /^subscriptionId,uid,variant,outcome,/);

    await open(`/apps/${appId}/notifications/${sampleId}`);
    const choosing = await page.getByTestId('choosing-winner').textContent();
    t.match(choosing, /winner is chosen at/);
    t.same(
      await page.locator('[data-variant] h3').allTextContents(),
      ['Variant A', 'Variant B', 'Variant C'],
      'no winner yet',
    );
    t.equal(await page.locator('[data-variant="A"] [data-figure="ctr"]').textContent(), '50%');

    await shoot('variants', `/apps/${appId}/notifications/${abId}`, () =>
      page
        .getByTestId('variants')
        .waitFor()
        .then(() => undefined),
    );
  });

  await t.test('the overview charts 7, 30 and 90 days, with the same numbers in a table', async (t) => {
    // The day rows as the rollups leave them (subscribing above wrote today's; these replace them).
    await sql`delete from app_day_stats where app_id = ${appId}`;
    const today = sql`(now() at time zone 'utc')::date`;
    for (const [ago, sent, shown, clicked, converted, subscribed, unsubscribed] of [
      [0, 120, 90, 30, 5, 3, 1],
      [3, 80, 60, 12, 2, 5, 0],
      [10, 200, 150, 40, 8, 7, 2],
      [45, 1000, 700, 100, 20, 50, 10],
    ] as const)
      await sql`insert into app_day_stats (app_id, day, sent, shown, clicked, converted, subscribed, unsubscribed)
        values (${appId}, ${today} - ${ago}::int, ${sent}, ${shown}, ${clicked}, ${converted}, ${subscribed}, ${unsubscribed})`;
    await open(`/apps/${appId}`);
    await page.locator('.stats-canvas canvas').first().waitFor();
    t.equal(await page.locator('.stats-canvas canvas').count(), 2, 'two uPlot charts');
    const totals = () =>
      page
        .locator('.chart-legend li')
        .evaluateAll((items) =>
          Object.fromEntries(
            items.map((item) => [(item as HTMLElement).dataset.count, item.querySelector('strong')?.textContent]),
          ),
        );
    const pressed = () => page.locator('.period-option[aria-pressed="true"]').textContent();
    t.equal(await pressed(), '30 days', '30 days first');
    t.same(await totals(), {
      sent: '400',
      shown: '300',
      clicked: '82',
      converted: '15',
      subscribed: '15',
      unsubscribed: '3',
    });
    t.match(await page.locator('.chart figcaption').first().textContent(), /^400 sends in the last 30 days/);
    const expected = {
      7: { sent: '200', shown: '150', clicked: '42', converted: '7', subscribed: '8', unsubscribed: '1' },
      90: { sent: '1,400', shown: '1,000', clicked: '182', converted: '35', subscribed: '65', unsubscribed: '13' },
    };
    for (const days of [7, 90] as const) {
      await page.getByRole('button', { name: `${days} days` }).click();
      await waitForValue(
        () => page.locator('[data-days]').getAttribute('data-days'),
        (value) => value === String(days),
        `the ${days}-day history`,
      );
      await waitForSettled(page);
      t.same(await totals(), expected[days], `${days} days`);
      t.equal(await pressed(), `${days} days`);
    }
    // The table holds every day's numbers, newest first.
    await page.getByText('Numbers by day').click();
    const rows = page.locator('.stats-days tbody tr');
    t.equal(await rows.count(), 90);
    const cells = (row: number) =>
      rows
        .nth(row)
        .locator('td')
        .allTextContents()
        .then((texts) => texts.slice(1));
    t.same(await cells(0), ['120', '90', '30', '5', '3', '1'], 'today');
    t.same(await cells(3), ['80', '60', '12', '2', '5', '0'], 'three days ago');
    t.same(await cells(45), ['1,000', '700', '100', '20', '50', '10'], '45 days ago');
    t.same(await cells(1), ['0', '0', '0', '0', '0', '0'], 'a quiet day is zeros');
    await assertAccessible(t, page, 'overview charts with the table open');

    await shoot('overview', `/apps/${appId}`, () => page.locator('.stats-canvas canvas').first().waitFor());
  });

  await t.test('the send form: variant tabs, a sample, errors under their fields', async (t) => {
    await open(`/apps/${appId}/send`);
    await page.locator('#title').fill('Spring sale');
    await page.locator('#body').fill('20% off everything');
    await page.getByRole('button', { name: '+ A/B test: add a variant' }).click();
    await page.getByRole('tab', { name: 'Variant B', selected: true }).waitFor();
    t.equal(await page.locator('#variant-b-title').getAttribute('placeholder'), 'Spring sale', 'A shows through');
    await page.locator('#variant-b-title').fill('Last day: 30% off');
    await page.locator('#variant-b-url').fill('http://shop.example/last');
    await page.getByRole('button', { name: '+ Add variant C' }).click();
    await page.locator('#variant-c-body').fill('Only until midnight');
    await page.getByLabel('Try the variants on a sample first').check();
    await page.getByLabel('Sample (% of the audience)').fill('10');
    await page.getByLabel('Pick the winner after (minutes)').fill('30');
    await assertAccessible(t, page, 'send form with variants');
    await page.getByRole('button', { name: 'Send notification' }).click();
    // The refused URL is in B: its tab opens and the error sits under the field.
    await page.getByRole('tab', { name: 'Variant B', selected: true }).waitFor();
    t.match(await page.locator('#variant-b-url-error').textContent(), /INVALID_URL/);
    t.equal(await page.locator('#variant-b-url').getAttribute('aria-invalid'), 'true');
    await page.locator('#variant-b-url').fill('https://shop.example/last');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByTestId('send-status').waitFor();
    const [sent] =
      await sql`select payload from notifications where app_id = ${appId} order by created_at desc limit 1`;
    t.match(sent?.payload, {
      title: 'Spring sale',
      variants: [{ title: 'Last day: 30% off', url: 'https://shop.example/last' }, { body: 'Only until midnight' }],
      sample: 0.1,
      winnerAfterMinutes: 30,
    });
    t.notOk('body' in (sent?.payload.variants[0] ?? {}), 'an empty field is left out: A’s');

    await shoot('send-variants', `/apps/${appId}/send`, async () => {
      await page.locator('#title').fill('秋のセール');
      await page.locator('#body').fill('全品 20% オフ。今週末まで。');
      await page.locator('.variant-bar button').click();
      await page.locator('#variant-b-title').fill('本日限り：30% オフ');
      await page.locator('.sample-fields input[type="checkbox"]').check();
    });
  });

  await t.test('a segment counts as it is built, is saved, and a send to it goes out in two languages', async (t) => {
    await open(`/apps/${appId}/segments`);
    const counted = (count: number) =>
      waitForValue(
        () => page.getByTestId('segment-count').getAttribute('data-count'),
        (value) => value === String(count),
        `the builder's count of ${count}`,
      );
    await page.getByLabel('Row 1: tag key').fill('plan');
    await page.getByLabel('Row 1: value').fill('pro');
    await counted(1);
    await page.getByRole('button', { name: '+ Condition' }).click();
    await page.getByLabel('Row 2: attribute').selectOption('language');
    await page.getByLabel('Row 2: value').fill('en');
    await counted(0);
    await page.getByLabel('Match', { exact: true }).selectOption('or');
    await counted(2);
    await assertAccessible(t, page, 'segment builder');
    await page.getByLabel('Segment name').fill('Pro or English');
    await page.getByRole('button', { name: 'Save segment' }).click();
    const saved = page.getByTestId('saved-segment');
    await saved.waitFor();
    t.match(await saved.textContent(), /^Pro or Englishplan = pro OR language en2/);
    await page.setViewportSize({ width: 375, height: 800 });
    await assertNoHorizontalScroll(t, page, 'segments page at 375 px');
    await page.setViewportSize({ width: 1440, height: 900 });

    // Opened again, it is changed in place: the same id, a new name, one row.
    const [before] = await sql`select id from segments where app_id = ${appId}`;
    await page.getByRole('button', { name: 'Open Pro or English in the builder' }).click();
    await page.getByText('Editing “Pro or English”').waitFor();
    await page.getByLabel('Segment name').fill('Pro or English readers');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved the changes to “Pro or English readers”.').waitFor();
    await waitForValue(
      () => saved.allTextContents(),
      (rows) => rows.length === 1 && rows[0]?.startsWith('Pro or English readers') === true,
      'the saved segment renamed in its row',
    );
    const [after] = await sql`select id, name from segments where app_id = ${appId}`;
    t.same(after, { id: before?.id, name: 'Pro or English readers' }, 'the same segment, renamed');

    await page.getByRole('link', { name: 'Send to Pro or English readers' }).click();
    await page.locator('#title').fill('Sale starts');
    await page.locator('#body').fill('30% off today');
    t.not(await page.locator('#segment-id').inputValue(), '', 'the saved segment is chosen');
    await page.getByLabel('Translation', { exact: true }).fill('ja');
    await page.getByRole('button', { name: '+ Add language' }).click();
    await page.getByRole('tab', { name: 'ja', selected: true }).waitFor();
    t.equal(await page.locator('#translation-1-title').getAttribute('placeholder'), 'Sale starts');
    // From the default text's tab, the untitled translation's tab opens with the reason under its title.
    await page.getByRole('tab', { name: 'Default' }).click();
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByRole('tab', { name: 'ja', selected: true }).waitFor();
    t.match(await page.locator('#translation-1-title-error').textContent(), /Enter a title for this language/);
    await page.locator('#translation-1-title').fill('セール開始');
    await page.getByLabel('Spread the send out').check();
    await page.getByLabel('Pushes per minute').fill('600');
    await assertAccessible(t, page, 'send form with a language tab');
    await page.getByRole('button', { name: 'Send notification' }).click();
    const status = page.getByTestId('send-status');
    await status.waitFor();
    t.match(await status.textContent(), /of 2 subscribers/);
    const [sent] = await sql`select payload, target_segment as segment, throttle_per_minute as throttle
      from notifications where app_id = ${appId} order by created_at desc limit 1`;
    t.match(sent?.payload, { title: 'Sale starts', translations: { ja: { title: 'セール開始' } } });
    t.notOk('body' in (sent?.payload.translations.ja ?? {}), 'an empty body is the default text’s');
    t.same(sent?.segment, { or: [{ tag: 'plan', equals: 'pro' }, { language: 'en' }] });
    t.equal(sent?.throttle, 600);

    await open(`/apps/${appId}/settings`);
    await page.getByLabel('App time zone').selectOption('Asia/Tokyo');
    await page.getByLabel('Limit how often one subscriber is notified').check();
    await page.getByLabel('At most (notifications)').fill('2');
    await page.getByLabel('In (hours)').fill('24');
    await page.locator('#delivery-title + form button[type="submit"]').click();
    await page.getByText('Saved: time zone Asia/Tokyo, at most 2 notifications in 24 hours.').waitFor();
    const [settings] = await sql`select time_zone, frequency_cap from apps where id = ${appId}`;
    t.same(settings, { time_zone: 'Asia/Tokyo', frequency_cap: { max: 2, hours: 24 } });

    if (screenshotDir === undefined) return;
    const segmentId = (await sql`select id from segments where app_id = ${appId}`)[0]?.id;
    await shoot('segments', `/apps/${appId}/segments`, async () => {
      const row = (n: number) => page.locator('.segment-row').nth(n);
      await row(0).locator('input').first().fill('plan');
      await row(0).locator('input').nth(1).fill('pro');
      await page.locator('.segment-root > .segment-add button').first().click();
      await row(1).locator('select').first().selectOption('language');
      await row(1).locator('input').fill('ja');
      await page.locator('.segment-root > .segment-add button').nth(1).click();
      await row(2).locator('select').first().selectOption('timeZone');
      await row(2).locator('select').nth(2).selectOption('Asia/Tokyo');
      await page.locator('[data-testid="segment-count"][data-count]').waitFor();
    });
    await shoot('segment-edit', `/apps/${appId}/segments`, async () => {
      await page.locator('[data-testid="saved-segment"] button').first().click();
      await page.locator('.segment-save button[type="button"]').waitFor();
      await page.locator('[data-testid="segment-count"][data-count]').waitFor();
    });
    await shoot('send-languages', `/apps/${appId}/send?segment=${segmentId}`, async () => {
      await page.locator('#title').fill('Sale starts');
      await page.locator('#body').fill('30% off today');
      await page.locator('#new-language').fill('ja');
      await page.locator('.language-add button').click();
      await page.locator('#translation-1-title').fill('セール開始');
      await page.locator('input[name="timing"][value="local"]').check();
      await page.locator('#throttled').check();
    });
    await shoot('settings', `/apps/${appId}/settings`, async () => {
      await page.locator('#delivery-title').scrollIntoViewIfNeeded();
    });
    await shoot('subscribers', `/apps/${appId}/subscribers`, async () => {
      await page.locator('#language-filter').fill('ja');
      await page.locator('.filter-form button[type="submit"]').click();
      await waitForValue(
        () => page.locator('tbody tr').count(),
        (n) => n === 1,
        'the filtered list',
      );
    });
  });

  await t.test('the subscribers page filters by language and time zone, and exports them as CSV', async (t) => {
    await open(`/apps/${appId}/subscribers`);
    const rows = page.locator('tbody tr');
    const shown = (count: number, what: string) =>
      waitForValue(
        () => rows.count(),
        (n) => n === count,
        what,
      );
    await shown(2, 'both subscribers');
    await page.getByLabel('Language').fill('ja');
    await page.getByRole('button', { name: 'Filter' }).click();
    await shown(1, 'the Japanese subscriber alone');
    t.match(await rows.first().textContent(), /ja-JP/);
    await page.getByLabel('Language').fill('');
    await page.getByLabel('Time zone').fill('America/New_York');
    await page.getByRole('button', { name: 'Filter' }).click();
    // One row before and after: wait for the row itself to change (the previous page stays on
    // screen while the next loads).
    const only = await waitForValue(
      () => rows.allTextContents(),
      (texts) => texts.length === 1 && /America\/New_York/.test(texts[0] ?? ''),
      'the New York subscriber alone',
    );
    t.match(only[0], /en-US/);
    await page.getByLabel('Time zone').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await shown(2, 'both again');

    const link = page.getByRole('link', { name: 'Export CSV' });
    const href = (await link.getAttribute('href')) ?? '';
    t.equal(href, `/api/v1/apps/${appId}/subscribers/export`);
    const csv = await fromPage(href);
    t.equal(csv.status, 200);
    t.equal(csv.text.trim().split('\n').length, 3, 'the header and both subscribers');
    t.match(csv.text, /^id,endpoint,status,uid,tags,language,timeZone,createdAt/);
  });

  t.test('no Content-Security-Policy violation and no page error', async (t) => {
    t.same(problems, []);
  });
}
