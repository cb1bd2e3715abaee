import { bearer, createApp, createKey, fakeSubscription, registerUser } from '@webpush/testing';
import t from 'tap';
import { checkPage, fakePushScript, launchChromium, openDashboard, startDashboard } from './harness.js';

/*
 * /demo in real Chromium: styled like the dashboard, in the visitor's language, and an error shown as
 * the dashboard shows one (its message in the page's language, the code beside it), never a raw
 * string. axe, and screenshots at 375 and 1440 px with SCREENSHOT_DIR, in both languages.
 */

const SHOTS = 'demo';

const browser = await launchChromium(t);
if (browser) {
  const { ctx, url } = await startDashboard(t);
  const owner = await registerUser(ctx.app);
  const app = await createApp(ctx.app, owner.token, 'Demo app');
  const key = await createKey(ctx.app, owner.token, app.id, 'subscribe_only');

  await t.test('in English: errors by code with the code beside them, then a subscription', async (t) => {
    const { page, problems } = await openDashboard(t, browser, {
      initScript: fakePushScript([fakeSubscription()]),
      grantOrigin: url,
    });
    const answer = await page.goto(`${url}/demo`);
    t.equal(answer?.headers().vary, 'Accept-Language');
    t.equal(await page.locator('html').getAttribute('lang'), 'en');
    await page.getByRole('heading', { name: 'Web push demo', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    const error = page.getByRole('alert');
    await error.getByText('Paste an API key first.').waitFor();

    await page.getByLabel('API key of your app').fill('wpk_not-a-real-key');
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    // The SDK's soft prompt asks first, in the page's language; its yes subscribes.
    const prompt = page.getByRole('dialog', { name: 'Get notifications from this demo?' });
    await prompt.waitFor();
    await checkPage(t, page, SHOTS, 'demo-prompt-en');
    await prompt.getByRole('button', { name: 'Yes, notify me' }).click();
    await error.getByText('The API key is not valid (it may have been revoked).').waitFor();
    t.equal(await error.locator('code.error-code').textContent(), 'INVALID_API_KEY', 'the code beside the message');
    t.notMatch(await error.textContent(), /api:|401/, 'not the raw error string');
    await checkPage(t, page, SHOTS, 'demo-error-en');

    await page.getByLabel('API key of your app').fill(key.secret);
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, notify me' }).click();
    await page.getByRole('heading', { name: 'Subscribed' }).waitFor();
    t.match(await page.locator('#subscriber-id').textContent(), /^[0-9a-f-]{36}$/);
    t.equal(await page.locator('#error').textContent(), '', 'the error is gone');
    await checkPage(t, page, SHOTS, 'demo-subscribed-en');
    t.same(problems, [], 'no CSP violation or page error');
  });

  await t.test('in Japanese for a Japanese browser; the switch remembers English', async (t) => {
    const { page, problems } = await openDashboard(t, browser, {
      locale: 'ja-JP',
      initScript: fakePushScript([fakeSubscription()]),
      grantOrigin: url,
    });
    await page.goto(`${url}/demo`);
    t.equal(await page.locator('html').getAttribute('lang'), 'ja');
    await page.getByRole('heading', { name: 'Web プッシュのデモ', level: 1 }).waitFor();
    await page.getByLabel('アプリの API キー').fill('wpk_not-a-real-key');
    await page.getByRole('button', { name: '購読する', exact: true }).click();
    const prompt = page.getByRole('dialog', { name: 'このデモから通知を受け取りますか？' });
    await prompt.waitFor();
    await checkPage(t, page, SHOTS, 'demo-prompt-ja');
    await prompt.getByRole('button', { name: '通知を受け取る' }).click();
    const error = page.getByRole('alert');
    await error.getByText('API キーが無効です（削除された可能性があります）。').waitFor();
    t.equal(await error.locator('code.error-code').textContent(), 'INVALID_API_KEY');
    await checkPage(t, page, SHOTS, 'demo-error-ja');

    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Web push demo', level: 1 }).waitFor();
    t.equal(await page.locator('html').getAttribute('lang'), 'en', 'English after the switch');
    await page.reload();
    await page.getByRole('heading', { name: 'Web push demo', level: 1 }).waitFor();
    t.pass('and still English on the next visit');
    t.same(problems, []);
    const check = await ctx.app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(key.secret) });
    t.equal(check.statusCode, 200);
  });
}
