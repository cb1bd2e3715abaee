import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import {
  launchChromium,
  newKeys,
  openPage,
  type RunningApi,
  startApi,
  startSite,
  storedSubscription,
} from './harness.js';

/*
 * The SDK's UI parts in real Chromium on a customer's site, subscribing through the real API: the
 * soft prompt (yes, no remembered, the iOS Home Screen steps), the bell and the category picker
 * (tags stored, read back through the API). Each is driven by keyboard and checked with axe-core.
 * SCREENSHOT_DIR (default /work/wt/shots/sdk when it exists) receives the prompts at 375 and 1440 px.
 */

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.SCREENSHOT_DIR;

interface AxeViolation {
  id: string;
  impact: string | null;
  nodes: { target: unknown[] }[];
}

/** axe-core in the page, WCAG 2.1 A and AA: no violation at all (the parts are small). */
async function assertAxeClean(t: Test, page: Page, name: string) {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.addScriptTag({ content: axeSource });
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[];
  t.same(violations, [], `${name}: axe finds nothing`);
}

async function shoot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 900 });
    await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** The element focused inside the part's shadow root: its data-action (or tag name). */
const focused = (page: Page) =>
  page.evaluate(
    `(() => { const a = document.querySelector('[data-webpush]')?.shadowRoot?.activeElement; return a ? a.dataset.action || a.dataset.part || a.tagName.toLowerCase() : null; })()`,
  ) as Promise<string | null>;

/** Starts the soft prompt without waiting for it; `answer()` waits for what it settled with. */
async function startPrompt(page: Page, api: RunningApi, extra: Record<string, unknown> = {}) {
  const options = { subscribe: { baseUrl: api.url, apiKey: api.apiKey }, ...extra };
  await page.evaluate(`void (window.answer = WebPush.prompt.showPrompt(${JSON.stringify(options)}))`);
}
const answer = (page: Page) =>
  page.evaluate(
    `window.answer.then((a) => ({ outcome: a.outcome, subscriberId: a.result?.subscriberId ?? null, reason: a.error?.reason ?? null }))`,
  ) as Promise<{ outcome: string; subscriberId: string | null; reason: string | null }>;

async function subscribersOf(api: RunningApi) {
  const response = await api.ctx.app.inject({
    method: 'GET',
    url: `/api/v1/apps/${api.appId}/subscribers`,
    headers: { authorization: `Bearer ${api.userToken}` },
  });
  return (response.json() as { subscribers: { endpoint: string; status: string; tags: Record<string, string> }[] })
    .subscribers;
}

const browser = await launchChromium(t);
if (browser) {
  const [api, site] = await Promise.all([startApi(t), startSite(t, { uiParts: true })]);

  await t.test('soft prompt: nothing on load; yes by keyboard subscribes; axe clean', async (t) => {
    for (const language of ['en', 'ja'] as const) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      t.teardown(() => context.close());
      const keys = newKeys();
      const page = await openPage(context, site, [keys]);
      await page.goto(`${site}/?lang=${language}`);
      t.equal(await page.locator('dialog').count(), 0, 'the page did not ask: nothing shows');

      await startPrompt(page, api);
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      const title =
        language === 'ja' ? '新着のお知らせを通知で受け取りますか？' : 'Get notified when there is something new?';
      t.equal(await dialog.getByRole('heading').textContent(), title, `${language} by the page's lang`);
      t.equal(await focused(page), 'allow', 'focus moved into the prompt, on its yes');
      await assertAxeClean(t, page, `prompt ${language}`);
      await shoot(page, `prompt-${language}`);
      t.equal(await storedSubscription(api, keys.endpoint), null, 'nothing asked or stored before the yes');

      await page.keyboard.press('Shift+Tab');
      t.equal(await focused(page), 'later', 'Shift+Tab reaches "not now"');
      await page.keyboard.press('Tab');
      t.equal(await focused(page), 'allow');
      await page.keyboard.press('Enter');
      const result = await answer(page);
      t.equal(result.outcome, 'subscribed');
      const stored = await storedSubscription(api, keys.endpoint);
      t.equal(stored?.id, result.subscriberId, 'the API stored what the prompt reported');
      t.equal(await page.locator('dialog').count(), 0, 'the prompt is gone');

      await startPrompt(page, api);
      t.same(
        await answer(page),
        { outcome: 'already-subscribed', subscriberId: null, reason: null },
        'not shown again',
      );
    }
  });

  await t.test('soft prompt: a "no" is remembered on this origin only, for the days given', async (t) => {
    const context = await browser.newContext();
    t.teardown(() => context.close());
    const page = await openPage(context, site, [newKeys()]);
    await page.goto(`${site}/`);
    await startPrompt(page, api, { rememberNoDays: 3 });
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Escape');
    t.equal((await answer(page)).outcome, 'declined', 'Escape is "not now"');
    t.equal(await page.locator('dialog').count(), 0);
    const saidAt = Number(await page.evaluate(`localStorage.getItem('webpush:prompt:declined')`));
    t.ok(Math.abs(saidAt - Date.now()) < 60_000, 'the time of the no, in this origin’s storage');

    await startPrompt(page, api, { rememberNoDays: 3 });
    t.equal((await answer(page)).outcome, 'declined-recently', 'not shown while the no holds');

    // Four days later (as far as the stored time says), the no of three days has run out.
    await page.evaluate(`localStorage.setItem('webpush:prompt:declined', String(Date.now() - 4 * 86400000))`);
    await startPrompt(page, api, { rememberNoDays: 3 });
    await page.getByRole('button', { name: 'Not now' }).click();
    t.equal((await answer(page)).outcome, 'declined', 'shown again, and a click on "not now" declines too');

    // A time in the future is no "no"; and another origin (the API's) writes only its own storage.
    await page.evaluate(`localStorage.setItem('webpush:prompt:declined', String(Date.now() + 86400000))`);
    const other = await context.newPage();
    await other.goto(`${api.url}/demo`);
    await other.evaluate(`localStorage.setItem('webpush:prompt:declined', String(Date.now()))`);
    await startPrompt(page, api, { rememberNoDays: 3 });
    await page.getByRole('dialog').waitFor();
    t.pass('the prompt shows: neither the future time nor the other origin’s entry counts');
    await page.keyboard.press('Escape');
    await answer(page);

    // A page that stops waiting aborts its signal: the prompt settles and leaves nothing behind.
    const options = JSON.stringify({ subscribe: { baseUrl: api.url, apiKey: api.apiKey }, ignoreRememberedNo: true });
    await page.evaluate(
      `void (window.closer = new AbortController(), window.answer = WebPush.prompt.showPrompt({ ...${options}, signal: window.closer.signal }))`,
    );
    await page.getByRole('dialog').waitFor();
    await page.evaluate(`window.closer.abort(new Error('the page gave up'))`);
    t.same(
      await page.evaluate(`window.answer.then((a) => ({ outcome: a.outcome, message: a.error?.message ?? null }))`),
      { outcome: 'failed', message: 'the page gave up' },
      'an abort settles the prompt as failed, with the reason',
    );
    t.equal(await page.locator('[data-webpush]').count(), 0, 'the prompt is gone from the page');
  });

  await t.test('iOS Safari in a tab: subscribe() says home-screen-required; the prompt shows the steps', async (t) => {
    for (const language of ['en', 'ja'] as const) {
      const context = await browser.newContext({
        userAgent:
          'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1',
        viewport: { width: 1440, height: 900 },
      });
      t.teardown(() => context.close());
      const page = await context.newPage();
      // What a Safari tab lacks: the Push API (and with it notifications for the web page).
      await page.addInitScript('delete window.PushManager; delete window.Notification;');
      await page.goto(`${site}/?lang=${language}`);
      const reason = await page.evaluate(
        `WebPush.subscribe(${JSON.stringify({ baseUrl: api.url, apiKey: api.apiKey })}).then(() => null, (e) => e.reason)`,
      );
      t.equal(reason, 'home-screen-required', 'a typed reason');
      await startPrompt(page, api);
      const dialog = page.getByRole('dialog');
      await dialog.waitFor();
      t.equal(await dialog.getByRole('listitem').count(), 3, 'three steps');
      await assertAxeClean(t, page, `home screen steps ${language}`);
      await shoot(page, `prompt-ios-${language}`);
      await page.keyboard.press('Enter');
      t.equal((await answer(page)).outcome, 'home-screen-required');
    }
  });

  await t.test('bell: subscribes on a keypress, then its panel unsubscribes', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const keys = newKeys();
    const page = await openPage(context, site, [keys]);
    await page.goto(`${site}/`);
    await page.evaluate(
      `window.bell = WebPush.bell.mountBell(${JSON.stringify({ subscribe: { baseUrl: api.url, apiKey: api.apiKey } })})`,
    );
    const bell = page.getByRole('button', { name: 'Get notifications' });
    await bell.waitFor();
    await page.waitForFunction(
      `document.querySelector('[data-webpush]').shadowRoot.querySelector('[data-part=bell]').dataset.state === 'unsubscribed'`,
    );
    await assertAxeClean(t, page, 'bell');
    await shoot(page, 'bell-en');
    await bell.focus();
    await page.keyboard.press('Enter');
    const settings = page.getByRole('button', { name: 'Notification settings' });
    await settings.waitFor();
    t.equal((await storedSubscription(api, keys.endpoint))?.status, 'active', 'stored by the API');

    await page.keyboard.press('Enter');
    t.equal(await settings.getAttribute('aria-expanded'), 'true');
    t.equal(await focused(page), 'unsubscribe', 'focus moves into the panel');
    await assertAxeClean(t, page, 'bell panel');
    await shoot(page, 'bell-panel-en');
    await page.keyboard.press('Escape');
    t.equal(await settings.getAttribute('aria-expanded'), 'false', 'Escape closes it');
    t.equal(await focused(page), 'bell', 'and gives focus back to the bell');

    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Get notifications' }).waitFor();
    t.equal(await storedSubscription(api, keys.endpoint), null, 'the panel’s button unsubscribed');
  });

  await t.test('category picker: the choice is stored as tags, read back through the API', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    t.teardown(() => context.close());
    const keys = newKeys();
    const page = await openPage(context, site, [keys]);
    await page.goto(`${site}/?lang=ja`);
    const options = {
      container: null,
      subscribe: { baseUrl: api.url, apiKey: api.apiKey, tags: { plan: 'free' } },
      categories: [
        { id: 'news', label: 'ニュース' },
        { id: 'sale', label: 'セール', checked: true },
        { id: 'weekly', label: '週刊まとめ' },
      ],
    };
    await page.evaluate(
      `window.picker = WebPush.categories.mountCategories({ ...${JSON.stringify(options)}, container: document.getElementById('slot') })`,
    );
    const group = page.getByRole('group', { name: '受け取る通知を選んでください' });
    await group.waitFor();
    t.equal(await group.getByRole('checkbox', { name: 'セール' }).isChecked(), true, 'the site’s default');
    await assertAxeClean(t, page, 'categories');
    await group.getByRole('checkbox', { name: 'ニュース' }).focus();
    await page.keyboard.press('Space');
    await group.getByRole('button', { name: '保存して通知を受け取る' }).click();
    await group.getByRole('status').getByText('保存しました。選んだ内容の通知が届きます。').waitFor();
    await shoot(page, 'categories-ja');

    const subscriber = (await subscribersOf(api)).find((row) => row.endpoint === keys.endpoint);
    t.same(subscriber?.tags, { plan: 'free', news: '1', sale: '1' }, 'the site’s tags and one per category');

    await page.reload();
    await page.evaluate(
      `window.picker = WebPush.categories.mountCategories({ ...${JSON.stringify(options)}, container: document.getElementById('slot') })`,
    );
    t.same(await page.evaluate('window.picker.selected()'), ['news', 'sale'], 'the choice is ticked on the next visit');
    await page.getByRole('checkbox', { name: 'セール' }).uncheck();
    await page.getByRole('button', { name: '保存して通知を受け取る' }).click();
    await page.getByRole('status').getByText('保存しました。選んだ内容の通知が届きます。').waitFor();
    const again = (await subscribersOf(api)).find((row) => row.endpoint === keys.endpoint);
    t.same(again?.tags, { plan: 'free', news: '1' }, 'an unticked category’s tag is gone');
  });
}
