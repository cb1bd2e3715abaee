import { bearer, fakeSubscription, waitForValue } from '@webpush/testing';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import {
  assertAccessible,
  capture,
  checkPage,
  createAppInPage,
  launchChromium,
  openDashboard,
  signUp,
  startDashboard,
  uniqueEmail,
} from './harness.js';

/*
 * The basics of managing apps, in real Chromium against the real API: numbers on the app cards, no
 * create form at the plan's app limit (a pointer to the plans instead), an app switcher that keeps
 * the tab, keys with a prefix of their secret and their last use, and deleting an app after a dialog
 * that names what goes with it. axe at 1440 px, no sideways scroll at 375 px, in English and Japanese.
 */

const SHOTS = 'app-basics';

const browser = await launchChromium(t);
if (browser) {
  const { ctx, url } = await startDashboard(t);
  const sql = ctx.database.sql;
  const { page, problems } = await openDashboard(t, browser);
  const email = uniqueEmail('basics');
  let blogId = '';
  let shopId = '';

  /** A key made through the API with the page's own session cookie (same origin). */
  const keyFor = (appId: string, scope: string) =>
    page.evaluate(
      async ([id, keyScope]) => {
        const answer = await fetch(`/api/v1/apps/${id}/keys`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ scope: keyScope, name: `${keyScope} key` }),
        });
        return ((await answer.json()) as { secret: string }).secret;
      },
      [appId, scope] as const,
    );

  /** The page as a person would look at it, in English and then in Japanese (ready once `inJapanese` is). */
  async function checkBothLanguages(t: Test, target: Page, name: string, inJapanese?: () => Promise<void>) {
    await checkPage(t, target, SHOTS, `${name}-en`);
    await target.getByRole('button', { name: '日本語' }).click();
    await target.locator('html[lang="ja"]').waitFor();
    await inJapanese?.();
    await checkPage(t, target, SHOTS, `${name}-ja`);
    await target.getByRole('button', { name: 'English' }).click();
    await target.locator('html[lang="en"]').waitFor();
  }

  await t.test('at the Free plan’s one app, the create form makes way for a pointer to the plans', async (t) => {
    await signUp(page, url, email);
    t.equal(await page.getByRole('button', { name: 'Create app' }).count(), 1, 'the form, with no app yet');
    blogId = await createAppInPage(page, 'Blog');
    await page.getByRole('link', { name: 'Apps' }).click();
    const limit = page.getByTestId('app-limit');
    await limit.waitFor();
    t.match(await limit.textContent(), 'Your Free plan has room for 1 app, and it is in use.');
    t.equal(await page.getByRole('button', { name: 'Create app' }).count(), 0, 'no form that can only fail');
    await limit.getByRole('link', { name: 'Ask for a bigger plan' }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    t.pass('the pointer leads to the plans');
  });

  await t.test('each app card shows its subscribers and this month’s sends', async (t) => {
    const notify = await keyFor(blogId, 'notify');
    for (let i = 0; i < 2; i++) {
      const answer = await ctx.app.inject({
        method: 'POST',
        url: '/api/v1/subscribe',
        headers: bearer(notify),
        payload: fakeSubscription(),
      });
      t.equal(answer.statusCode, 201);
    }
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/notify',
      headers: bearer(notify),
      payload: { title: 'Hello', body: 'there' },
    });
    t.equal(sent.statusCode, 202);
    await sql`update users set plan = 'pro' where email = ${email}`;
    await page.goto(`${url}/`);
    const numbers = page.getByRole('link', { name: /Blog/ }).getByTestId('app-numbers');
    await numbers.waitFor();
    t.equal(await numbers.textContent(), '2 subscribers2 sends this month');
    await page.getByRole('button', { name: 'Create app' }).waitFor();
    t.pass('on Pro the form is back');
    shopId = await createAppInPage(page, 'Shop');
    await page.getByRole('link', { name: 'Apps' }).click();
    await page.getByRole('link', { name: /Shop/ }).getByText('0 subscribers').waitFor();
    await checkBothLanguages(t, page, 'apps', () => page.getByText('購読者 2 人').waitFor());
  });

  await t.test('the app switcher opens the other app on the same tab', async (t) => {
    await page.goto(`${url}/apps/${shopId}/keys`);
    const switcher = page.getByLabel('Switch app');
    await switcher.waitFor();
    t.equal(await switcher.inputValue(), shopId);
    await switcher.selectOption({ label: 'Blog' });
    await page.waitForURL(`${url}/apps/${blogId}/keys`);
    await page.getByRole('heading', { name: 'Blog', level: 1 }).waitFor();
    t.pass('Blog, on its keys tab');
  });

  await t.test('keys show a prefix of their secret and when they were last used', async (t) => {
    await page.goto(`${url}/apps/${blogId}/keys`);
    await page.getByLabel('Name (optional)').fill('Server');
    await page.locator('input[name="scope"][value="notify"]').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    t.match(secret, /^wpk_/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const row = page.getByRole('row', { name: /Server/ });
    await row.getByText(`${secret.slice(0, 10)}…`).waitFor();
    t.notOk((await row.textContent())?.includes(secret.slice(10, 20)), 'no more of the secret than the prefix');
    t.match(await row.textContent(), 'Never');

    const used = await ctx.app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(secret) });
    t.equal(used.statusCode, 200);
    // The use is recorded beside the request, not before its answer: wait for the row, then look.
    const recorded = await waitForValue(
      async () => (await sql`select last_used_at from api_keys where display_prefix = ${secret.slice(0, 10)}`)[0],
      (row) => row?.last_used_at != null,
      "the key's use is recorded",
    );
    t.ok(recorded?.last_used_at, 'the use is recorded');
    await page.reload();
    await page.getByRole('row', { name: /Server/ }).waitFor();
    t.notMatch(await page.getByRole('row', { name: /Server/ }).textContent(), 'Never', 'now it has a time');
    await checkBothLanguages(t, page, 'keys', () => page.getByRole('columnheader', { name: '最終使用' }).waitFor());
  });

  await t.test('deleting an app: a dialog names what goes, then the app and its keys are gone', async (t) => {
    const server = await keyFor(blogId, 'full');
    await page.goto(`${url}/apps/${blogId}/settings`);
    await page.getByRole('button', { name: 'Delete app' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Blog”?' });
    await dialog.waitFor();
    const text = (await dialog.textContent()) ?? '';
    for (const lost of ['its 2 subscribers', 'INVALID_API_KEY', 'its notifications', 'This cannot be undone.'])
      t.match(text, lost, `names: ${lost}`);
    const last = dialog.getByText('This cannot be undone.');
    t.ok(await last.isVisible(), 'the last sentence is inside the box');
    await capture(page, SHOTS, 'delete-app-dialog-en-1440.png');
    await page.setViewportSize({ width: 375, height: 800 });
    await capture(page, SHOTS, 'delete-app-dialog-en-375.png');
    await assertAccessible(t, page, 'delete dialog at 375 px');
    await page.setViewportSize({ width: 1440, height: 900 });

    await dialog.getByRole('button', { name: 'Cancel' }).click();
    const [kept] = await sql`select count(*)::int as n from apps where id = ${blogId}`;
    t.equal(kept?.n, 1, 'Cancel keeps it');

    await page.getByRole('button', { name: 'Delete app' }).click();
    await dialog.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
    t.equal(await page.getByRole('link', { name: /Blog/ }).count(), 0, 'off the list');
    await page.getByRole('link', { name: /Shop/ }).waitFor();
    const [gone] = await sql`select count(*)::int as n from apps where id = ${blogId}`;
    t.equal(gone?.n, 0);
    const refused = await ctx.app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(server) });
    t.equal(refused.statusCode, 401);
    t.equal(refused.json<{ code: string }>().code, 'INVALID_API_KEY');
    t.same(problems, []);
  });
}
