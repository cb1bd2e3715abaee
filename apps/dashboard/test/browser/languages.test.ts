import { waitForValue } from '@webpush/testing';
import t from 'tap';
import {
  assertAccessible,
  assertNoHorizontalScroll,
  capture,
  launchChromium,
  openDashboard,
  PASSWORD,
  screenshotDir,
  startDashboard,
  uniqueEmail,
  waitForSettled,
} from './harness.js';

/*
 * The languages of docs/dashboard.md in real Chromium: a Japanese browser gets Japanese pages (and /pricing
 * without JavaScript), the pick in the header wins and is remembered, axe passes in both languages;
 * and the journeys a newcomer could not finish: no subscribers, the dashboard's own origin, the
 * "Try it" timeout. Screenshots of the changed pages at 375 and 1440 px in both languages, with
 * SCREENSHOT_DIR set.
 */

const SHOTS = 'languages';
// The try-it key is named in the page's language.
const TRY_IT_KEY = 'ダッシュボード: このブラウザーで試す';

// 18 accessibility checks and as many page loads (twice as many with SCREENSHOT_DIR) in real Chromium:
// on a slower 2-core VM the file once reached the suite's 180 s per file (.taprc). Its own bound:
t.setTimeout(480_000);
const browser = await launchChromium(t);
if (browser) {
  const { ctx, url } = await startDashboard(t);
  const sql = ctx.database.sql;
  // Opened before the first subtest: the root test must not end while a top-level await runs.
  const noScript = {
    ja: await openDashboard(t, browser, { locale: 'ja-JP', javaScriptEnabled: false }),
    en: await openDashboard(t, browser, { locale: 'en-US', javaScriptEnabled: false }),
  };
  const email = uniqueEmail('ja');
  const { page, context, problems } = await openDashboard(t, browser, { locale: 'ja-JP', grantOrigin: url });
  let appId = '';

  await t.test('/pricing without JavaScript: Japanese for a Japanese browser, English otherwise', async (t) => {
    for (const [lang, heading] of [
      ['ja', 'プラン'],
      ['en', 'Plans'],
    ] as const) {
      const { page } = noScript[lang];
      const answer = await page.goto(`${url}/pricing`);
      t.equal(answer?.headers().vary, 'Accept-Language');
      t.equal(await page.locator('html').getAttribute('lang'), lang);
      await page.getByRole('heading', { name: heading, exact: true, level: 1 }).waitFor();
      t.pass(`${lang}: ${heading}`);
    }
  });

  await t.test('a Japanese browser signs up in Japanese; the account is Japanese', async (t) => {
    await page.goto(`${url}/sign-up`);
    t.equal(await page.locator('html').getAttribute('lang'), 'ja');
    await page.getByRole('heading', { name: 'アカウントを作成' }).waitFor();
    await page.getByText('8〜128 文字。').waitFor();
    await assertAccessible(t, page, 'sign-up (ja)');
    await page.getByLabel('メールアドレス').fill(email);
    await page.getByLabel('パスワード').fill('short');
    await page.getByRole('button', { name: 'アカウントを作成' }).click();
    t.match(await page.locator('#password-error').textContent(), '8 文字以上にしてください。');
    await page.getByLabel('パスワード').fill(PASSWORD);
    await page.getByRole('button', { name: 'アカウントを作成' }).click();
    await page.getByRole('heading', { name: 'アプリ一覧' }).waitFor();
    const [user] = await sql`select language from users where email = ${email}`;
    t.equal(user?.language, 'ja', 'the account language comes from Accept-Language');
    t.equal(await page.title(), 'アプリ · Web Push');
  });

  await t.test('an app with no subscribers says so where it matters', async (t) => {
    await page.getByLabel('名前').fill('ブログ');
    await page.getByRole('button', { name: 'アプリを作成' }).click();
    await page.getByRole('heading', { name: 'ブログ' }).waitFor();
    appId = /\/apps\/([0-9a-f-]{36})$/.exec(page.url())?.[1] ?? '';
    await page.getByTestId('chart-empty').waitFor();

    await page.getByRole('link', { name: '購読者', exact: true }).click();
    t.match(await page.getByTestId('subscribers-empty').textContent(), '購読者はまだいません。');

    await page.getByRole('link', { name: '送信', exact: true }).click();
    await page.getByTestId('no-subscribers').waitFor();
    await page.getByLabel('タイトル').fill('こんにちは');
    await page.getByLabel('本文').fill('はじめての通知です');
    await page.getByRole('button', { name: '通知を送信' }).click();
    const warning = page.getByTestId('no-targets');
    await warning.waitFor();
    t.match(await warning.textContent(), '誰にも届いていません');
    await warning.getByRole('link', { name: '試す' }).waitFor();
  });

  await t.test('a stale INVALID_URL goes when the field changes, and stands under its field', async (t) => {
    await page.goto(`${url}/apps/${appId}/send`);
    await page.getByLabel('タイトル').fill('t');
    await page.getByLabel('本文').fill('b');
    await page.getByLabel('アイコン（任意）').fill('http://example.com/icon.png');
    await page.getByRole('button', { name: '通知を送信' }).click();
    const error = page.locator('#icon-error');
    await error.waitFor();
    t.match(await error.textContent(), 'URL は https:// で始めてください。');
    await page.getByLabel('アイコン（任意）').fill('https://example.com/icon.png');
    await error.waitFor({ state: 'detached' });
    t.equal(await page.locator('.error-message').count(), 0, 'no error left anywhere');
  });

  await t.test('allowed origins warn that the dashboard’s own origin must be listed', async (t) => {
    await page.goto(`${url}/apps/${appId}/settings`);
    const origins = page.getByLabel('オリジン（1 行に 1 つ）');
    await origins.fill('https://www.example.com');
    const warning = page.getByTestId('dashboard-origin-warning');
    await warning.waitFor();
    t.match(await warning.textContent(), url);
    await origins.fill(`https://www.example.com\n${url}`);
    await warning.waitFor({ state: 'detached' });
    t.pass('listing the dashboard origin removes the warning');
  });

  await t.test(
    'Try it: a push service that never answers ends in a message, and one key serves every try',
    async (t) => {
      // A browser of its own, signed in as the same account, whose clock the test moves on: the page's
      // 20 s wait passes at once, and the other subtests keep a real clock.
      const tryIt = await openDashboard(t, browser, { locale: 'ja-JP', grantOrigin: url });
      await tryIt.context.addCookies(await context.cookies());
      await tryIt.context.clock.install();
      // The real subscribe() never settles when no push service is reachable.
      await tryIt.page.addInitScript(() => {
        PushManager.prototype.subscribe = () => new Promise(() => {});
      });
      await tryIt.page.goto(`${url}/apps/${appId}/try`);
      const button = tryIt.page.getByRole('button', { name: 'このブラウザーを購読させる' });
      await button.click();
      // The SDK's soft prompt asks first, in the page's language.
      const prompt = tryIt.page.getByRole('dialog', { name: 'このブラウザーでテスト通知を受け取りますか？' });
      await prompt.getByRole('button', { name: '通知を受け取る' }).click();
      const alert = tryIt.page.getByRole('alert').filter({ hasText: '20 秒以内に応答がありませんでした' });
      // The wait starts once the key is made: move the clock on until the message is there.
      const shown = await waitForValue(
        async () => {
          await tryIt.context.clock.fastForward(20_000);
          return alert.isVisible();
        },
        (visible) => visible,
        'the try-it wait ends in its message',
      );
      t.ok(shown, 'the wait ends in its message');
      // The prompt went with the wait: nothing is left over the page to catch the next click.
      await prompt.waitFor({ state: 'detached' });
      t.equal(await tryIt.page.locator('[data-webpush]').count(), 0, 'no SDK element is left on the page');
      await button.click();
      await prompt.getByRole('button', { name: '通知を受け取る' }).click();
      await tryIt.page.getByText('応答を待っています').waitFor();
      const keys = await waitForValue(
        async () => sql`select 1 from api_keys where app_id = ${appId} and name = ${TRY_IT_KEY}`,
        (rows) => rows.length > 0,
        'the try-it key exists',
      );
      t.equal(keys.length, 1, 'the second try reused the first key');
      t.same(tryIt.problems, [], 'no Content-Security-Policy violation and no page error');
    },
  );

  await t.test('the header picks English, remembers it, and the account follows', async (t) => {
    // The pick comes before the page knows who is signed in (its /auth/me is held back until then):
    // the account still follows once the answer is in.
    let release = () => {};
    const clicked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const me = `${url}/api/v1/auth/me`;
    await page.route(me, async (route) => {
      if (route.request().method() === 'GET') await clicked;
      await route.continue();
    });
    await page.goto(`${url}/`);
    await page.getByRole('button', { name: 'English' }).click();
    release();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
    t.equal(await page.locator('html').getAttribute('lang'), 'en');
    const cookies = await context.cookies(url);
    t.equal(cookies.find((cookie) => cookie.name === 'wp_lang')?.value, 'en');
    const language = await waitForValue(
      async () => (await sql`select language from users where email = ${email}`)[0]?.language,
      (value) => value === 'en',
      "the account's language is en",
    );
    t.equal(language, 'en', 'the account (and its e-mails) follow the pick');
    await page.reload();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
    t.equal(await page.locator('html').getAttribute('lang'), 'en', 'the pick outlives a reload');
    await page.goto(`${url}/account`);
    await page.getByLabel('日本語').check();
    await page.getByRole('heading', { name: 'アカウント', exact: true }).waitFor();
    t.equal(await page.locator('html').getAttribute('lang'), 'ja');
    await page.unroute(me);
  });

  await t.test('screenshots at 375 and 1440 px in both languages; axe and no sideways scroll', async (t) => {
    await page.goto(`${url}/apps/${appId}/keys`);
    await page.getByRole('button', { name: 'キーを作成' }).click();
    await page.getByRole('button', { name: 'コピーしました' }).click();
    const pages = [
      { name: 'pricing', path: '/pricing' },
      { name: 'apps', path: '/' },
      { name: 'overview', path: `/apps/${appId}` },
      { name: 'send', path: `/apps/${appId}/send` },
      { name: 'keys', path: `/apps/${appId}/keys` },
      { name: 'try', path: `/apps/${appId}/try` },
      { name: 'settings', path: `/apps/${appId}/settings` },
      { name: 'account', path: '/account' },
      { name: 'missing-app', path: '/apps/00000000-0000-4000-8000-000000000000' },
    ];
    for (const language of ['ja', 'en'] as const) {
      await context.addCookies([{ name: 'wp_lang', value: language, url }]);
      for (const width of [375, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        // At 1440 px the pages are only photographed: the checks run at 375 px.
        for (const { name, path } of width === 375 || screenshotDir !== undefined ? pages : []) {
          await page.goto(`${url}${path}`);
          await page.locator('main h1, main h2').first().waitFor();
          await waitForSettled(page);
          t.equal(await page.locator('html').getAttribute('lang'), language);
          await capture(page, SHOTS, `${name}-${language}-${width}.png`);
          if (width === 375) {
            await assertAccessible(t, page, `${name} (${language})`);
            await assertNoHorizontalScroll(t, page, `${name} (${language}, 375 px)`);
          }
        }
        // The revoke dialog, open: its whole sentence inside the box.
        await page.goto(`${url}/apps/${appId}/keys`);
        await page.locator('.actions button').first().click();
        const dialog = page.getByRole('dialog');
        await dialog.waitFor();
        const fits = await dialog.evaluate((element) => element.scrollWidth <= element.clientWidth + 1);
        t.ok(fits, `revoke dialog (${language}, ${width} px): nothing runs out of the box`);
        await capture(page, SHOTS, `revoke-dialog-${language}-${width}.png`);
        await page.keyboard.press('Escape');
      }
    }
  });

  t.test('no Content-Security-Policy violation and no page error', async (t) => {
    t.same(problems, []);
  });
}
