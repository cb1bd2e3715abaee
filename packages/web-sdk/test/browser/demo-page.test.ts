import t from 'tap';
import { writeServedBundles } from '../../build.mjs';
import { launchChromium, newKeys, openPage, startApi, storedSubscription } from './harness.js';

/*
 * The API's own /demo page, as a newcomer uses it: paste a key, click Subscribe, see the stored id
 * and a curl command for a test notification. The API serves /sdk/web-sdk.js and /sdk/sw.js from
 * packages/web-sdk/dist, read at startup, so the bundles are written there first.
 */

const browser = await launchChromium(t);
if (browser) {
  await writeServedBundles();
  const api = await startApi(t);
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const keys = newKeys();
  const page = await openPage(context, api.url, [keys]);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // A CSP violation is reported on the console, not thrown.
    if (message.type() === 'error') pageErrors.push(message.text());
  });

  await t.test('subscribe with a pasted key asks with the soft prompt, then shows the stored id', async (t) => {
    await page.goto(`${api.url}/demo`);
    await page.waitForFunction(() => document.getElementById('state')?.dataset.state === 'unsubscribed');
    await page.fill('#key', api.apiKey);
    await page.click('#subscribe');
    // The SDK's soft prompt asks first; its yes subscribes.
    await page.click('[data-action=allow]');
    await page.waitForFunction(() => (document.getElementById('subscriber-id')?.textContent ?? '') !== '', null, {
      timeout: 10_000,
    });

    const id = await page.textContent('#subscriber-id');
    const stored = await storedSubscription(api, keys.endpoint);
    t.equal(stored?.id, id, 'the page shows the id the API stored');
    t.equal(stored?.app_id, api.appId);
    t.equal(await page.getAttribute('#state', 'data-state'), 'subscribed');
    t.equal(await page.textContent('#state'), 'subscribed', 'the state in the page’s words');
    t.equal(await page.isVisible('#result'), true);

    const curl = (await page.textContent('#curl')) ?? '';
    t.match(curl, `curl -X POST ${api.url}/api/v1/apps/YOUR_APP_ID/test-notification`);
    const body = /-d '(.*)'$/m.exec(curl)?.[1] ?? '';
    t.same(JSON.parse(body), { subscription: keys }, 'the curl body is the subscription, ready to send');
    t.same(pageErrors, [], 'no script error and no CSP violation');
  });

  await t.test('the worker comes from /sdk/sw.js with the API address and key', async (t) => {
    const script = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.getRegistration('/sdk/sw.js');
      return registration?.active?.scriptURL ?? '';
    });
    const url = new URL(script);
    t.equal(url.pathname, '/sdk/sw.js');
    t.equal(url.searchParams.get('baseUrl'), api.url);
    t.equal(url.searchParams.get('apiKey'), api.apiKey);
  });

  await t.test('a wrong key shows the message for the API error code, the code beside it', async (t) => {
    await page.click('#unsubscribe');
    await page.waitForFunction(() => document.getElementById('state')?.dataset.state === 'unsubscribed');
    t.equal(await storedSubscription(api, keys.endpoint), null, 'Unsubscribe removed it');
    await page.fill('#key', 'wpk_wrong');
    await page.click('#subscribe');
    await page.click('[data-action=allow]');
    await page.waitForFunction(() => (document.getElementById('error')?.textContent ?? '') !== '');
    t.equal(await page.textContent('#error span'), 'The API key is not valid (it may have been revoked).');
    t.equal(await page.textContent('#error code.error-code'), 'INVALID_API_KEY');
  });
}
