import { startFakeGithub, waitForValue } from '@webpush/testing';
import t from 'tap';
import {
  assertAccessible,
  assertNoHorizontalScroll,
  capture,
  createAppInPage,
  launchChromium,
  openDashboard,
  PASSWORD,
  signUp,
  startDashboard,
  uniqueEmail,
  waitForSettled,
} from './harness.js';

/*
 * Every page in real Chromium against the real API: sign-up errors, the plan limit's way to /pricing,
 * key revocation, a failed request and its retry, GitHub sign-in (the fake GitHub), /pricing without
 * JavaScript, the 404 page, axe-core on each page and the 375 px layout.
 */

// Its accessibility checks in real Chromium (and screenshots, then) took 135 s on a slower 2-core VM,
// near the suite's 180 s per file (.taprc). Its own bound, still finite:
t.setTimeout(480_000);
const browser = await launchChromium(t);
if (browser) {
  const github = await startFakeGithub();
  t.teardown(() => github.close());
  const { ctx, url } = await startDashboard(t, { ...github.env });
  const { page, problems } = await openDashboard(t, browser);

  await t.test('/pricing reads without JavaScript: every plan with its limits', async (t) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    t.teardown(() => context.close());
    const noScript = await context.newPage();
    const response = await noScript.goto(`${url}/pricing`);
    t.equal(response?.status(), 200);
    t.same(await noScript.locator('.plan-name').allTextContents(), ['Free', 'Pro', 'Enterprise']);
    t.match(await noScript.locator('main').textContent(), /30,000 sends a month/);
    t.match(await noScript.locator('main').textContent(), /Sign in to request this plan/);
    t.notMatch(await noScript.locator('main').textContent(), /pnpm admin/, 'no shell command for customers');
  });

  await t.test('a visitor is sent to sign-in; sign-up errors show the API message next to the field', async (t) => {
    await page.goto(`${url}/apps/00000000-0000-0000-0000-000000000000/keys`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.match(page.url(), /\/sign-in\?next=%2Fapps%2F/);
    await assertAccessible(t, page, 'sign-in');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await assertAccessible(t, page, 'sign-up');
    // The browser accepts `someone@localhost` as an e-mail; the API does not.
    await page.getByLabel('E-mail').fill('someone@localhost');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    const emailError = page.locator('#email-error');
    await emailError.waitFor();
    t.match(await emailError.textContent(), 'Enter a valid e-mail address.');
    t.match(await emailError.textContent(), 'INVALID_EMAIL');
    t.equal(await page.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');

    await page.getByLabel('E-mail').fill(uniqueEmail('short'));
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('#password-error').waitFor();
    t.match(await page.locator('#password-error').textContent(), 'Use at least 8 characters.');
    // Fixing the field takes the stale error away at once.
    await page.getByLabel('Password').fill(PASSWORD);
    await page.locator('#password-error').waitFor({ state: 'detached' });
    t.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), null, 'no longer marked invalid');
    const users = await ctx.database.sql`select 1 from users`;
    t.equal(users.length, 0, 'nothing was created');
  });

  const email = uniqueEmail('owner');
  let appId = '';

  await t.test('sign-up lands on the apps page; the Free plan’s second app leads to /pricing', async (t) => {
    await signUp(page, url, email);
    t.equal(new URL(page.url()).pathname, '/');
    await assertAccessible(t, page, 'apps (empty)');
    appId = await createAppInPage(page, 'First site');
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
    await page.getByRole('link', { name: /First site/ }).waitFor();
    await assertAccessible(t, page, 'apps');

    // At the limit the form that could only fail gives way to the plans.
    const limit = page.getByTestId('app-limit');
    await limit.waitFor();
    t.equal(await page.getByRole('button', { name: 'Create app' }).count(), 0, 'no create form at the limit');
    await limit.getByRole('link', { name: 'Ask for a bigger plan' }).click();
    await page.getByRole('heading', { name: 'Plans', exact: true }).waitFor();
    t.equal(new URL(page.url()).pathname, '/pricing');
    const current = page.locator('.plan-current');
    await current.getByText('Your plan').waitFor();
    t.match(await current.locator('.plan-name').textContent(), /^Free/, 'the user’s plan is marked');
    await assertAccessible(t, page, 'pricing');
    const apps = await ctx.database.sql`select name from apps`;
    t.same(
      apps.map((row) => row.name),
      ['First site'],
      'no second app was made',
    );
  });

  await t.test('a key is shown once, and revoked only after confirming', async (t) => {
    await page.goto(`${url}/apps/${appId}/keys`);
    await page.getByRole('heading', { name: 'Create an API key' }).waitFor();
    await page.getByLabel(/^Notify/).check();
    await page.getByLabel('Name (optional)').fill('Server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    t.match(secret, /^wpk_/);
    t.match(await page.getByText('it will not be shown again').textContent(), /not be shown again/);
    await assertAccessible(t, page, 'keys with a new secret');
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    t.notMatch(stored, secret, 'the secret is in no web storage');
    t.notMatch(stored, /wps_/, 'nor is a session token');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    t.equal(await page.getByTestId('new-secret').count(), 0, 'gone once dismissed');

    const notify = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/v1/notify',
        headers: { authorization: `Bearer ${secret}` },
        payload: { title: 'a', body: 'b' },
      });
    t.equal((await notify()).statusCode, 202, 'the key works');

    await page.getByRole('button', { name: 'Revoke key Server' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await assertAccessible(t, page, 'revoke confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    t.equal(await dialog.isVisible(), false);
    t.equal((await notify()).statusCode, 202, 'cancel keeps the key');

    await page.getByRole('button', { name: 'Revoke key Server' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No keys yet.').waitFor();
    const revoked = await notify();
    t.equal(revoked.statusCode, 401);
    t.equal(revoked.json().code, 'INVALID_API_KEY', 'the revoked key is refused');
  });

  await t.test(
    'the history shows shown, clicked and the click-through rate, in the list and the details',
    async (t) => {
      // The two sends of the key test; counts as the event flusher would have raised them.
      const [counted, uncounted] = await ctx.database.sql<{ id: string }[]>`
      select id from notifications where app_id = ${appId} order by created_at desc, id`;
      if (!counted || !uncounted) throw new Error('the key test sent two notifications');
      await ctx.database.sql`update notifications set shown = 8, clicked = 3 where id = ${counted.id}`;

      await page.goto(`${url}/apps/${appId}/notifications`);
      await page.getByRole('heading', { name: 'Notifications', exact: true }).waitFor();
      // The heading renders before the list has loaded: wait for the table itself.
      await page.locator('tbody tr').nth(1).waitFor();
      const headers = await page.locator('thead th').allTextContents();
      t.match(headers, [
        'Sent at',
        'Title',
        'Status',
        'Targets',
        'Sent',
        'Failed',
        'Expired',
        'Shown',
        'Clicked',
        'CTR',
      ]);
      t.equal(await page.locator('thead abbr').getAttribute('title'), 'Click-through rate: clicked ÷ shown');
      const cells = (row: number) => page.locator('tbody tr').nth(row).locator('td.engagement').allTextContents();
      t.strictSame(await cells(0), ['8', '3', '37.5%'], 'shown, clicked, clicked ÷ shown');
      t.strictSame(await cells(1), ['0', '0', '—'], 'no rate while nothing was shown');
      t.equal(await page.locator('tbody tr').first().locator('td.num').count(), 4, 'the delivery counts stay apart');
      t.match(await page.locator('main').textContent(), /CTR, the click-through rate, is clicked ÷ shown/);

      await page.locator('tbody tr').first().getByRole('link').first().click();
      const engagement = page.getByTestId('engagement');
      await engagement.waitFor();
      t.match(await engagement.textContent(), /8 shown, 3 clicked, click-through rate 37\.5%/);
      await assertAccessible(t, page, 'a notification’s page');
      await capture(page, 'pages', 'notification-1440.png');
    },
  );

  await t.test('a rich send: image, a button and a tag; clicks per button in the history', async (t) => {
    await page.goto(`${url}/apps/${appId}/send`);
    await page.getByRole('heading', { name: 'New notification' }).waitFor();
    await page.getByLabel('Title').fill('Autumn sale');
    await page.getByLabel('Body').fill('Half price');
    await page.getByText('Picture, buttons and behaviour (optional)').click();
    await page.getByLabel('Image', { exact: true }).fill('https://example.com/banner.png');
    await page.getByLabel('Button 1 label').fill('Buy now');
    await page.getByLabel('Button 1 link').fill('https://example.com/buy');
    await page.getByLabel('Tag', { exact: true }).fill('sale');
    await page.getByLabel('Stays until dismissed').check();
    t.equal(
      await page
        .locator('.preview-button')
        .allTextContents()
        .then((all) => all.join()),
      'Buy now',
    );
    await assertAccessible(t, page, 'send with the rich fields open');
    await page.getByRole('button', { name: 'Send notification' }).click();
    await page.getByTestId('send-status').waitFor();
    const [sent] = await ctx.database.sql<{ id: string; payload: Record<string, unknown> }[]>`
      select id, payload from notifications where app_id = ${appId} order by created_at desc limit 1`;
    t.strictSame(sent?.payload, {
      title: 'Autumn sale',
      body: 'Half price',
      image: 'https://example.com/banner.png',
      actions: [{ action: 'button-1', title: 'Buy now', url: 'https://example.com/buy' }],
      tag: 'sale',
      requireInteraction: true,
    });
    await ctx.database
      .sql`update notifications set clicked = 2, action_clicks = '{"button-1": 2}' where id = ${sent?.id ?? ''}`;
    await page.goto(`${url}/apps/${appId}/notifications`);
    await page.getByRole('link', { name: 'Autumn sale' }).click();
    t.equal(await page.getByTestId('button-clicks').textContent(), 'Buy now: 2');
    t.match(await page.getByTestId('buttons').textContent(), /Buy now → https:\/\/example\.com\/buy/);
  });

  await t.test('settings: the push format and the default page', async (t) => {
    await page.goto(`${url}/apps/${appId}/settings`);
    await page.getByRole('heading', { name: 'Push format' }).waitFor();
    await page.getByLabel(/^Declarative/).check();
    await page.getByLabel('Default page').fill('https://example.com/');
    await page.getByRole('region', { name: 'Push format' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('region', { name: 'Push format' }).getByText('Saved.').waitFor();
    const [app] = await ctx.database.sql`select push_format, default_url from apps where id = ${appId}`;
    t.strictSame({ ...app }, { push_format: 'declarative', default_url: 'https://example.com/' });
    await assertAccessible(t, page, 'settings with the push format');
    await page.getByLabel(/^Legacy/).check();
    await page.getByLabel('Default page').fill('');
    await page.getByRole('region', { name: 'Push format' }).getByRole('button', { name: 'Save' }).click();
    // "Saved." is still on screen from the first save: wait for the row itself.
    const back = await waitForValue(
      async () => (await ctx.database.sql`select push_format, default_url from apps where id = ${appId}`)[0],
      (row) => row?.push_format === 'legacy',
      'the app is back to the legacy format',
    );
    t.strictSame({ ...back }, { push_format: 'legacy', default_url: null });
  });

  await t.test(
    'webhook settings: URL and events, the secret once, attempts with Send again, rotate, delete',
    async (t) => {
      const sql = ctx.database.sql;
      await page.goto(`${url}/apps/${appId}/settings`);
      const section = page.getByRole('region', { name: 'Webhook' });
      await section.getByRole('button', { name: 'Create webhook' }).waitFor();
      t.equal(await section.getByRole('button', { name: 'Delete webhook' }).count(), 0, 'nothing to delete yet');

      // A refused address says which rule it broke, next to the field, until the field changes.
      const urlError = section.locator('#webhook-url-error');
      await section.getByLabel('Endpoint URL').fill('https://127.0.0.1/hook');
      await section.getByRole('button', { name: 'Create webhook' }).click();
      await urlError.waitFor();
      t.match(await urlError.textContent(), '127.0.0.1 is a private, loopback or link-local address');
      t.notMatch(await urlError.textContent(), 'https://', 'not the https rule');
      t.equal(await sql`select 1 from webhooks where app_id = ${appId}`.then((rows) => rows.length), 0);
      await section.getByLabel('Endpoint URL').fill('http://example.com/hook');
      await urlError.waitFor({ state: 'detached' });
      await section.getByRole('button', { name: 'Create webhook' }).click();
      await urlError.waitFor();
      t.match(await urlError.textContent(), 'must start with https://');

      await section.getByLabel('Endpoint URL').fill('https://93.184.215.14/hooks/push');
      await section.getByLabel('notification.failed').uncheck();
      await section.getByRole('button', { name: 'Create webhook' }).click();
      const secret = (await section.getByTestId('webhook-secret').textContent()) ?? '';
      t.match(secret, /^whsec_/, 'the signing secret is shown after creation');
      const [stored] = await sql`select url, events from webhooks where app_id = ${appId}`;
      t.match(stored, {
        url: 'https://93.184.215.14/hooks/push',
        events: ['notification.completed', 'subscription.expired'],
      });
      await section.getByRole('button', { name: 'I have copied it' }).click();
      t.equal(await section.getByTestId('webhook-secret').count(), 0, 'gone once dismissed');
      await page.reload();
      await section.getByRole('button', { name: 'Save webhook' }).waitFor();
      t.equal(await section.getByLabel('Endpoint URL').inputValue(), 'https://93.184.215.14/hooks/push');
      t.equal(await section.getByLabel('notification.failed').isChecked(), false, 'the events are as saved');
      t.equal(await section.getByTestId('webhook-secret').count(), 0, 'the secret is not shown again');

      // Two attempts of one event, as the worker records them.
      const subject = '00000000-0000-4000-8000-000000000001';
      const [message] = await sql<{ id: string }[]>`
      insert into webhook_messages (app_id, type, subject_id, dedupe_key, status, attempts, body)
      values (${appId}, 'subscription.expired', ${subject}, ${`ui:${subject}`}, 'failed', 2, '{}') returning id`;
      await sql`insert into webhook_attempts (message_id, app_id, url, status, duration_ms, response, created_at)
      values (${message?.id ?? ''}, ${appId}, 'https://93.184.215.14/hooks/push', 500, 41, 'upstream exploded',
        now() - interval '2 minutes')`;
      await sql`insert into webhook_attempts (message_id, app_id, url, status, duration_ms, error)
      values (${message?.id ?? ''}, ${appId}, 'https://93.184.215.14/hooks/push', null, 10000,
        'timed out after 10000 ms')`;
      await page.reload();
      const rows = section.getByTestId('webhook-delivery');
      await rows.first().waitFor();
      t.equal(await rows.count(), 2);
      t.match(await rows.nth(0).textContent(), /subscription\.expired.*no answer.*10000 ms.*timed out after 10000 ms/);
      t.match(await rows.nth(1).textContent(), /500.*41 ms.*upstream exploded/);
      await assertAccessible(t, page, 'webhook settings with deliveries');

      // The circuit breaker, as the worker records it: paused, then disabled, with the last error.
      await sql`update webhooks set failures_in_a_row = 6, paused_until = now() + interval '10 minutes',
        failing_since = now() - interval '1 hour', last_error_reason = 'HTTP 503', last_error_status = 503,
        last_error_at = now() where app_id = ${appId}`;
      await page.reload();
      const breaker = section.getByTestId('webhook-breaker');
      await breaker.waitFor();
      t.match(await breaker.textContent(), /Deliveries are paused.*6 attempts in a row failed.*HTTP 503/);
      await assertAccessible(t, page, 'webhook settings, paused');
      await sql`update webhooks set disabled_at = now(), paused_until = null, last_error_reason = 'timeout',
        last_error_status = null where app_id = ${appId}`;
      await page.reload();
      await breaker.getByText('Deliveries are disabled').waitFor();
      t.match(await breaker.textContent(), /last error: timeout.*Resume deliveries/);
      // Every other tab of the app says so too, with the way to the settings.
      await page.goto(`${url}/apps/${appId}`);
      const notice = page.getByTestId('webhook-disabled-notice');
      await notice.waitFor();
      t.match(await notice.textContent(), /Webhook deliveries of this app are disabled \(last error: timeout\)/);
      await assertAccessible(t, page, 'the overview with the disabled-webhook notice');
      await notice.getByRole('link', { name: 'Open webhook settings' }).click();
      await breaker.getByText('Deliveries are disabled').waitFor();
      t.equal(await notice.count(), 0, 'not repeated above the full banner');
      await page.setViewportSize({ width: 375, height: 800 });
      await assertNoHorizontalScroll(t, page, 'the disabled banner at 375 px');
      await page.setViewportSize({ width: 1440, height: 900 });
      await breaker.getByRole('button', { name: 'Resume deliveries' }).click();
      await section.getByText('Deliveries resumed.').waitFor();
      t.equal(await breaker.count(), 0, 'the banner is gone');
      const [reset] = await sql`select failures_in_a_row, disabled_at from webhooks where app_id = ${appId}`;
      t.strictSame({ ...reset }, { failures_in_a_row: 0, disabled_at: null }, 'the breaker is reset');

      await rows.nth(1).getByRole('button', { name: 'Send again subscription.expired' }).click();
      await section.getByText('Queued again with the same').waitFor();
      const [pending] = await sql`select status from webhook_messages where id = ${message?.id ?? ''}`;
      t.equal(pending?.status, 'pending', 'the event is pending again');
      t.ok(await ctx.app.queues.webhooks.getJob(message?.id ?? ''), 'and queued under its webhook-id');
      await ctx.app.queues.webhooks.obliterate({ force: true });

      const sealedBefore = (await sql`select secret_sealed from webhooks where app_id = ${appId}`)[0]?.secret_sealed;
      await section.getByRole('button', { name: 'Rotate signing secret' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = (await section.getByTestId('webhook-secret').textContent()) ?? '';
      t.match(rotated, /^whsec_/);
      t.not(rotated, secret, 'a new secret, shown once');
      const sealedAfter = (await sql`select secret_sealed from webhooks where app_id = ${appId}`)[0]?.secret_sealed;
      t.not(sealedAfter, sealedBefore);

      await page.setViewportSize({ width: 375, height: 800 });
      await assertNoHorizontalScroll(t, page, 'webhook settings at 375 px');
      await page.setViewportSize({ width: 1440, height: 900 });
      await capture(page, 'pages', 'webhook-settings-1440.png');

      await section.getByRole('button', { name: 'Delete webhook' }).click();
      await dialog.getByRole('button', { name: 'Delete webhook' }).click();
      await section.getByRole('button', { name: 'Create webhook' }).waitFor();
      t.equal(await sql`select 1 from webhooks where app_id = ${appId}`.then((rows) => rows.length), 0, 'deleted');
    },
  );

  await t.test('a failed request shows its message and a Retry that works', async (t) => {
    await page.route('**/api/v1/apps', (route) => route.abort('connectionrefused'));
    await page.goto(`${url}/`);
    const panel = page.locator('.error-panel');
    await panel.waitFor();
    t.match(await panel.textContent(), 'could not be reached');
    await page.unroute('**/api/v1/apps');
    await panel.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('link', { name: /First site/ }).waitFor();
    t.pass('the list loads after Retry');

    // An app id that is not the user's: a page that says so, with no tabs and no Retry, and a way back.
    await page.goto(`${url}/apps/00000000-0000-0000-0000-000000000000`);
    await page.getByRole('heading', { name: 'App not found' }).waitFor();
    t.equal(await page.getByRole('navigation', { name: 'App' }).count(), 0, 'no tabs into the missing app');
    t.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0, 'no Retry for a 404');
    t.equal(await page.locator('.skeleton').count(), 0, 'nothing left loading');
    await page.getByRole('link', { name: 'Back to your apps' }).click();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
  });

  await t.test('every page passes axe and fits 375 px', async (t) => {
    const pages = [
      { path: `/apps/${appId}`, heading: 'Activity per day' },
      { path: `/apps/${appId}/send`, heading: 'New notification' },
      { path: `/apps/${appId}/notifications`, heading: 'Notifications' },
      { path: `/apps/${appId}/subscribers`, heading: 'Subscribers' },
      { path: `/apps/${appId}/keys`, heading: 'Keys' },
      { path: `/apps/${appId}/try`, heading: 'Try it in this browser' },
      { path: '/account', heading: 'Account' },
      { path: '/no/such/page', heading: 'Page not found' },
    ];
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 800 });
      for (const { path, heading } of pages) {
        await page.goto(`${url}${path}`);
        await page.getByRole('heading', { name: heading, exact: true }).waitFor();
        await waitForSettled(page);
        if (width === 1440) await assertAccessible(t, page, path);
        else await assertNoHorizontalScroll(t, page, `${path} at 375 px`);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  await t.test('keyboard: skip link, then Tab reaches the navigation with a visible focus', async (t) => {
    await page.goto(`${url}/`);
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Web Push');
    const focusRing = await page.evaluate(() => getComputedStyle(document.activeElement as Element).boxShadow);
    t.not(focusRing, 'none', 'the focused link shows a focus ring');
  });

  await t.test('sign out ends the session', async (t) => {
    await page.goto(`${url}/account`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${url}/account`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.match(page.url(), /\/sign-in\?next=%2Faccount$/);
  });

  await t.test('GitHub sign-in lands on the dashboard, signed in', async (t) => {
    const user = github.addUser({
      id: 7_001,
      login: 'octo',
      emails: [{ email: 'octo@example.com', primary: true, verified: true, visibility: 'public' }],
    });
    github.signInAs(user.id);
    const { page: fresh } = await openDashboard(t, browser);
    await fresh.goto(`${url}/sign-in`);
    await fresh.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await fresh.getByRole('heading', { name: 'Your apps' }).waitFor();
    t.equal(fresh.url(), `${url}/`, 'the callback redirected to the dashboard');
    await fresh.getByRole('link', { name: 'Account' }).click();
    await fresh.getByText('octo@example.com', { exact: true }).first().waitFor();
    const rows = await ctx.database.sql`select github_id from users where email = 'octo@example.com'`;
    t.equal(Number(rows[0]?.github_id), 7_001, 'the account is linked to the GitHub user');

    // The session ends elsewhere: the next request's INVALID_SESSION leads back to sign-in.
    await ctx.database.sql`delete from sessions`;
    // The page may learn it first by itself (a refetch answered INVALID_SESSION) and leave for
    // sign-in while the nav is clicked: seen once in CI as a click on a detached "Apps" link.
    const signIn = fresh.getByRole('heading', { name: 'Sign in' });
    try {
      await fresh.getByRole('link', { name: 'Apps', exact: true }).click({ timeout: 5_000 });
      await fresh.getByLabel('Name').fill('Too late', { timeout: 5_000 });
      await fresh.getByRole('button', { name: 'Create app' }).click({ timeout: 5_000 });
    } catch (error) {
      await signIn.waitFor({ timeout: 5_000 }).catch(() => {
        throw error;
      });
    }
    await signIn.waitFor();
    t.pass('an ended session goes back to sign-in');
  });

  t.test('no Content-Security-Policy violation and no page error anywhere', async (t) => {
    t.same(problems, []);
  });
}
