import { createPushSender } from '@webpush/push';
import { startFakePushService, waitForValue } from '@webpush/testing';
import { startWorker } from '@webpush/worker/worker';
import t from 'tap';
import {
  capture,
  createAppInPage,
  fakePushScript,
  launchChromium,
  openDashboard,
  screenshot,
  signUp,
  startDashboard,
  uniqueEmail,
} from './harness.js';

/*
 * The whole journey a person makes, in real Chromium against the real API, PostgreSQL, Redis, the
 * worker and the local HTTPS push stand-in: register → create an app → create keys → subscribe this
 * browser through the web SDK → send from the dashboard → the push reaches the stand-in (decrypted)
 * and the browser (CDP, as the SDK's tests do) → the history and the counts show it.
 */

/** README's screenshot: rewritten in docs/ with UPDATE_SCREENSHOTS=1 (else kept like the others). */
const README_SCREENSHOT = new URL('../../../../docs/dashboard-overview.png', import.meta.url).pathname;

const browser = await launchChromium(t);
if (browser) {
  const push = await startFakePushService();
  t.teardown(() => push.close());
  const { ctx, url } = await startDashboard(
    t,
    { PUSH_SERVICE_HOSTS: push.hostRule, PUSH_RETRY_BASE_MS: '50' },
    { pushExtraCa: push.caPem },
  );
  const worker = await startWorker(ctx.config, {
    sender: createPushSender({ allowlist: ctx.config.pushServiceHosts, ca: push.caPem, timeoutMs: 5_000 }),
  });
  t.teardown(() => worker.close());

  // The browser's push subscription is one of the stand-in's: real keys, an allow-listed endpoint.
  const browserSubscription = push.subscribe();
  const { page, context, problems } = await openDashboard(t, browser, {
    initScript: fakePushScript([browserSubscription]),
    grantOrigin: url,
  });
  const cdp = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const registration of updated) {
      if (!registration.isDeleted) registrations.set(registration.scopeURL, registration.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');

  let appId = '';
  const title = 'Flash sale';
  const body = '20% off until Sunday — 本日限り';
  const link = 'https://shop.example/sale?from=push';

  await t.test('register and create an app', async (t) => {
    await signUp(page, url, uniqueEmail('journey'));
    appId = await createAppInPage(page, 'Journey shop');
    const rows = await ctx.database.sql`select name from apps where id = ${appId}`;
    t.equal(rows[0]?.name, 'Journey shop');
  });

  await t.test('create a notify key: the secret is shown once', async (t) => {
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel(/^Notify/).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    t.match(await page.getByTestId('new-secret').textContent(), /^wpk_[A-Za-z0-9_-]+$/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('cell', { name: 'notify' }).waitFor();
  });

  await t.test('subscribe this browser through the web SDK served at /sdk/web-sdk.js', async (t) => {
    await page.getByRole('link', { name: 'Try it' }).click();
    const state = page.getByTestId('push-state');
    await state.waitFor();
    t.equal(await state.getAttribute('data-state'), 'unsubscribed');
    await page.getByRole('button', { name: 'Subscribe this browser' }).click();
    // The SDK's soft prompt asks first, as it would on a customer's site.
    const prompt = page.getByRole('dialog', { name: 'Get test notifications in this browser?' });
    await prompt.getByRole('button', { name: 'Yes, notify me' }).click();
    await page.getByText('Subscribed.', { exact: true }).waitFor();
    await page.locator('[data-state="subscribed"]').waitFor();

    const stored = await ctx.database.sql<{ app_id: string; status: string; p256dh: string }[]>`
      select app_id, status, p256dh from subscriptions where endpoint = ${browserSubscription.endpoint}`;
    t.same(stored, [{ app_id: appId, status: 'active', p256dh: browserSubscription.p256dh }], 'stored for this app');
    const keys = await ctx.database
      .sql`select scope from api_keys where app_id = ${appId} and name = ${'Dashboard: try it in this browser'}`;
    t.same(
      keys.map((key) => key.scope),
      ['subscribe_only'],
      'a subscribe_only key was made for it',
    );
    t.ok(
      await waitForValue(
        async () => registrations.get(`${url}/sdk/`),
        (id) => id !== undefined,
        "the SDK's service worker is registered at /sdk/",
      ),
      "the SDK's service worker is registered at /sdk/",
    );
  });

  await t.test('a test notification reaches the push service', async (t) => {
    await page.getByRole('button', { name: 'Send a test notification' }).click();
    await page.getByText('the push service accepted it').waitFor();
    const received = push.deliveredTo(browserSubscription.id);
    t.equal(received.length, 1);
    t.equal(JSON.parse(received[0]?.payload ?? '{}').title !== undefined, true, 'a readable payload');
    t.same(push.protocolErrors, []);
  });

  await t.test('send from the dashboard: byte counter, live progress to completed', async (t) => {
    await page.getByRole('link', { name: 'Send', exact: true }).click();
    await page.getByLabel('Title').fill(title);
    await page.getByLabel('Body').fill(body);
    await page.getByLabel('Link (optional)').fill(link);
    const bytes = Buffer.byteLength(JSON.stringify({ title, body, url: link }), 'utf8');
    t.equal(await page.locator('#byte-counter').textContent(), `${bytes} / 3,072 bytes`, 'counted as the API counts');
    t.equal(await page.locator('.preview-title').textContent(), title, 'the preview follows the form');

    await page.getByRole('button', { name: 'Send notification' }).click();
    const status = page.locator('[data-testid="send-status"][data-status="completed"]');
    await status.waitFor();
    t.match(await status.textContent(), '1 sent, 0 failed, 0 expired of 1 subscriber');
  });

  await t.test('the push arrives: at the stand-in, decrypted, and shown by the browser', async (t) => {
    const delivered = push.deliveredTo(browserSubscription.id);
    t.equal(delivered.length, 2, 'the test notification and this one');
    const payload = delivered[1]?.payload ?? '';
    t.match(JSON.parse(payload), { title, body, url: link });
    t.same(push.protocolErrors, [], 'valid VAPID and RFC 8291 encryption');

    const registrationId = registrations.get(`${url}/sdk/`) ?? '';
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: url, registrationId, data: payload });
    const shown = await waitForValue(
      () =>
        page.evaluate(async () => {
          const registration = await navigator.serviceWorker.getRegistration('/sdk/sw.js');
          const notifications = (await registration?.getNotifications()) ?? [];
          return notifications.map((notification) => ({ title: notification.title, body: notification.body }));
        }),
      (list) => list.some((notification) => notification.title === title),
      'the test notification is shown',
    );
    t.match(shown, [{ title, body }], 'the browser shows the notification');
  });

  await t.test('the history and the counts show it', async (t) => {
    await page.getByRole('link', { name: 'Notifications', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: title });
    await row.waitFor();
    t.match(await row.textContent(), /completed/);
    t.same(await row.locator('td.num').allTextContents(), ['1', '1', '0', '0'], 'targets, sent, failed, expired');
    // The title leads to the notification's own page, which shows what was sent.
    await row.getByRole('link', { name: title }).click();
    await page.getByText(body).waitFor();
    t.equal(new URL(page.url()).pathname.split('/').length, 5, '/apps/{appId}/notifications/{id}');

    await page.getByRole('link', { name: 'Subscribers', exact: true }).click();
    const subscriber = page.getByRole('row').filter({ hasText: browserSubscription.endpoint });
    await subscriber.waitFor();
    t.match(await subscriber.textContent(), /active/);

    await page.getByRole('link', { name: 'Overview' }).click();
    const sends = page.locator('.stat-card').filter({ hasText: 'Sends this month' });
    // Cached usage shows first and refreshes at once (the send invalidated it).
    const sendsText = await waitForValue(
      async () => (await sends.textContent()) ?? '',
      (text) => text.startsWith('Sends this month1 / 30,000'),
      'the send is counted on the usage page',
    );
    t.match(sendsText, /^Sends this month1 \/ 30,000/);
    t.match(
      await page.locator('.stat-card').filter({ hasText: 'Active subscribers' }).textContent(),
      /Active subscribers1/,
    );
    // The day's history refreshes like the usage (cached first): the push is counted on today's row.
    const caption = await waitForValue(
      async () => (await page.locator('.chart figcaption').first().textContent()) ?? '',
      (text) => text.startsWith('1 send in the last 30 days'),
      'the push is on the activity chart',
    );
    t.match(caption, /^1 send in the last 30 days/);
    await page.waitForLoadState('networkidle');
    if (process.env.UPDATE_SCREENSHOTS === '1') await screenshot(page, README_SCREENSHOT);
    else await capture(page, 'journey', 'overview-1440.png');
  });

  await t.test('delete the subscriber, after confirming: it is no longer a target', async (t) => {
    await page.getByRole('link', { name: 'Subscribers', exact: true }).click();
    await page.getByRole('button', { name: /^Delete subscriber/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete subscriber' }).click();
    await page.getByText('No subscribers yet.').waitFor();
    const rows = await ctx.database.sql`select 1 from subscriptions where app_id = ${appId} and status = 'active'`;
    t.equal(rows.length, 0);
  });

  t.test('no Content-Security-Policy violation and no page error', async (t) => {
    t.same(problems, []);
  });
}
