import { type MailServer, type ReceivedMail, startMailServer, waitFor } from '@webpush/testing';
import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import {
  checkPage,
  createAppInPage,
  launchChromium,
  openDashboard,
  PASSWORD,
  signUp,
  startDashboard,
  uniqueEmail,
} from './harness.js';

/*
 * The account and audience pages in real Chromium against the real API, with a real local SMTP
 * server: the verification and reset links are read from the e-mails and opened as a user would.
 * Sessions, the app's Settings tab, a tags audience sent later and its cancel, subscriber filters;
 * two-factor sign-in, access tokens, the audit log and deleting the account; axe-core and 375 px on
 * each new page.
 */

const SHOTS = 'accounts';

/** The authenticator app's code (RFC 6238: SHA-1, 6 digits, 30 s), `steps` steps from now. */
const totpCode = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: Date.now() + steps * 30_000,
  });

const browser = await launchChromium(t);
if (browser) {
  const mail: MailServer = await startMailServer();
  t.teardown(() => mail.close());
  const { ctx, url } = await startDashboard(t, { ...mail.env, MAIL_FROM: 'Web Push <no-reply@push.example.com>' });
  const sql = ctx.database.sql;
  const { page, problems } = await openDashboard(t, browser);

  /** The one `${url}${path}?token=…` link of the message. */
  const linkOf = (message: ReceivedMail, path: string) => {
    const link = message.text.split(/\s+/).find((word) => word.startsWith(`${url}${path}?token=`));
    if (!link) throw new Error(`no ${path} link in: ${message.text}`);
    return link;
  };
  const mailLink = async (address: string, path: string, count = 1) =>
    linkOf(await mail.waitFor(address, { count, matching: (m) => m.text.includes(`${url}${path}?token=`) }), path);

  const email = uniqueEmail('owner');
  let appId = '';

  await t.test(
    'an unverified owner sees the banner; the e-mail link verifies; a bad link says so in the page language',
    async (t) => {
      await signUp(page, url, email);
      const banner = page.getByRole('region', { name: 'E-mail verification' });
      await banner.waitFor();
      await banner.getByRole('button', { name: 'Resend verification e-mail' }).click();
      await banner.getByText('Sent: check your inbox.').waitFor();
      await checkPage(t, page, SHOTS, 'banner');
      const link = await mailLink(email, '/verify-email', 2);

      await page.goto(`${url}/verify-email?token=wpv_not-a-real-token`);
      const error = page.getByRole('alert');
      await error.waitFor();
      // The browser prefers English: the dashboard's own message for the code, and the code beside it.
      t.match(await error.textContent(), 'This link is invalid, already used or expired.');
      t.match(await error.textContent(), 'INVALID_TOKEN');
      // The button needs the session (`/auth/me`), which may answer after the error shows.
      t.ok(
        await page
          .getByRole('button', { name: 'Resend verification e-mail' })
          .first()
          .waitFor()
          .then(
            () => true,
            () => false,
          ),
        'a way to resend',
      );
      await checkPage(t, page, SHOTS, 'verify-email-invalid');

      await page.goto(link);
      await page.getByText('is verified').waitFor();
      await checkPage(t, page, SHOTS, 'verify-email');
      const [row] = await sql<
        { verified: boolean }[]
      >`select email_verified as verified from users where email = ${email}`;
      t.equal(row?.verified, true, 'the user is verified in the database');
      await page.getByRole('link', { name: 'Go to your apps' }).click();
      await page.getByRole('heading', { name: 'Your apps' }).waitFor();
      t.equal(await banner.count(), 0, 'no banner any more');
    },
  );

  await t.test('Account lists both sessions; ending the other one signs that browser out', async (t) => {
    const other = await openDashboard(t, browser);
    await other.page.goto(`${url}/sign-in`);
    await other.page.getByLabel('E-mail').fill(email);
    await other.page.getByLabel('Password').fill(PASSWORD);
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await other.page.getByRole('heading', { name: 'Your apps' }).waitFor();

    await page.goto(`${url}/account`);
    const rows = page.getByTestId('session-row');
    await rows.nth(1).waitFor();
    t.equal(await rows.count(), 2, 'two sessions');
    t.equal(await page.getByText('This device').count(), 1, 'one is this device');
    t.match(await rows.first().textContent(), /Chrome \d+ on Linux/, 'the browser, read from its User-Agent');
    await checkPage(t, page, SHOTS, 'account');

    await page.getByRole('button', { name: /^Sign out the session from/ }).click();
    await page.getByRole('button', { name: 'Sign it out' }).click();
    await waitFor(async () => (await rows.count()) === 1, 'one session row is listed', { intervalMs: 100 });
    t.equal(await rows.count(), 1, 'one session left');
    const me = await other.context.request.get(`${url}/api/v1/auth/me`);
    t.equal(me.status(), 401, 'the other browser is signed out');
    t.equal((await page.context().request.get(`${url}/api/v1/auth/me`)).status(), 200, 'this one is not');
  });

  await t.test('Settings: rename, allowed origins (checked, saved), identity secret shown once', async (t) => {
    await page.goto(`${url}/`);
    appId = await createAppInPage(page, 'Shop');
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Allowed origins' }).waitFor();
    await checkPage(t, page, SHOTS, 'settings');

    await page.getByLabel('App name').fill('Shop JP');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'Shop JP', level: 1 }).waitFor();

    const origins = page.getByLabel('Origins, one a line');
    await origins.fill('https://shop.example.com/path');
    await page.getByRole('button', { name: 'Save origins' }).click();
    t.match(await page.locator('#allowed-origins-error').textContent(), 'is not an origin');
    t.equal(await origins.getAttribute('aria-invalid'), 'true');
    await origins.fill('https://shop.example.com\nhttp://localhost:5173');
    await page.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('Saved: https://shop.example.com, http://localhost:5173.').waitFor();
    const [app] = await sql<{ name: string; allowed_origins: string[]; sealed: boolean }[]>`
      select name, allowed_origins, identity_secret_sealed is not null as sealed from apps where id = ${appId}`;
    t.equal(app?.name, 'Shop JP');
    t.same(app?.allowed_origins, ['https://shop.example.com', 'http://localhost:5173']);
    t.equal(app?.sealed, false, 'no identity secret yet');

    await page.getByRole('button', { name: 'Create or rotate the identity secret' }).click();
    await page.getByRole('button', { name: 'Create new secret' }).click();
    const secret = (await page.getByTestId('identity-secret').textContent()) ?? '';
    t.ok(secret.length >= 32, 'the secret is shown');
    const [sealed] = await sql<
      { sealed: string }[]
    >`select identity_secret_sealed as sealed from apps where id = ${appId}`;
    t.ok(sealed?.sealed, 'stored');
    t.notOk(sealed?.sealed.includes(secret), 'sealed, not in clear');
  });

  await t.test('a tags audience sent later is scheduled, listed with its time, and canceled', async (t) => {
    await page.getByRole('link', { name: 'Send' }).click();
    await page.getByLabel('Title').fill('Sale');
    await page.getByLabel('Body').fill('Tomorrow only');
    await page.getByRole('radio', { name: /Tags/ }).check();
    await page.getByRole('radio', { name: /Send later/ }).check();
    await checkPage(t, page, SHOTS, 'send');
    await page.getByRole('textbox', { name: 'Tags' }).fill('lang ja');
    await page.getByRole('button', { name: 'Schedule notification' }).click();
    t.match(await page.locator('#tags-error').textContent(), 'not a key=value pair');
    await page.getByRole('textbox', { name: 'Tags' }).fill('lang=ja\nplan=pro');
    await page.getByRole('button', { name: 'Schedule notification' }).click();
    const status = page.getByTestId('send-status');
    await status.waitFor();
    t.equal(await status.getAttribute('data-status'), 'scheduled');
    const [sent] = await sql<{ id: string; status: string; tags: unknown; ahead: number }[]>`
      select id, status, target_tags as tags,
             extract(epoch from send_at - now())::float8 as ahead
      from notifications where app_id = ${appId}`;
    t.equal(sent?.status, 'scheduled');
    t.same(sent?.tags, { lang: 'ja', plan: 'pro' }, 'the tags audience was sent');
    const ahead = sent?.ahead ?? 0;
    t.ok(ahead > 50 * 60 && ahead <= 61 * 60, `sendAt is the hour ahead the form proposed (${ahead} s)`);

    await page.getByRole('link', { name: 'See all notifications' }).click();
    const cancel = page.getByRole('button', { name: `Cancel scheduled send ${sent?.id}` });
    await cancel.waitFor();
    t.match(await page.locator('tbody').textContent(), /scheduledfor /);
    await checkPage(t, page, SHOTS, 'notifications-scheduled');
    await cancel.click();
    await page.getByRole('button', { name: 'Cancel the send' }).click();
    await page.locator('.status-canceled').waitFor();
    const [canceled] = await sql<{ status: string }[]>`select status from notifications where id = ${sent?.id ?? ''}`;
    t.equal(canceled?.status, 'canceled');
  });

  await t.test('subscribers: uid and tag filters reach the API', async (t) => {
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByLabel('User id').fill('user-42');
    await page.getByLabel('Tag').fill('lang:ja');
    const request = page.waitForRequest((r) => r.url().includes('/subscribers?'));
    await page.getByRole('button', { name: 'Filter' }).click();
    const query = new URL((await request).url()).searchParams;
    t.equal(query.get('uid'), 'user-42');
    t.equal(query.get('tag'), 'lang:ja');
    await page.getByText('No subscribers match these filters.').waitFor();
    await checkPage(t, page, SHOTS, 'subscribers');
  });

  await t.test('forgot password → the e-mail link → a new password; every session ends', async (t) => {
    const visitor = await openDashboard(t, browser);
    await visitor.page.goto(`${url}/sign-in`);
    await visitor.page.getByRole('link', { name: 'Forgot your password?' }).click();
    await visitor.page.getByLabel('E-mail').fill(email);
    await checkPage(t, visitor.page, SHOTS, 'forgot-password');
    await visitor.page.getByRole('button', { name: 'Send the link' }).click();
    await visitor.page.getByText('If an account exists').waitFor();
    const link = await mailLink(email, '/reset-password');

    await visitor.page.goto(`${url}/reset-password?token=wpr_not-a-real-token`);
    await visitor.page.getByLabel('New password').fill('a new long password');
    await visitor.page.getByRole('button', { name: 'Set the new password' }).click();
    const error = visitor.page.getByRole('alert');
    await error.waitFor();
    t.match(await error.textContent(), 'This link is invalid, already used or expired.');
    t.match(await error.textContent(), 'INVALID_TOKEN');
    await checkPage(t, visitor.page, SHOTS, 'reset-password-invalid');

    await visitor.page.goto(link);
    await visitor.page.getByLabel('New password').fill('a new long password');
    await visitor.page.getByRole('button', { name: 'Set the new password' }).click();
    await visitor.page.getByText('Every session of your account was signed out').waitFor();
    await checkPage(t, visitor.page, SHOTS, 'reset-password');
    t.equal((await page.context().request.get(`${url}/api/v1/auth/me`)).status(), 401, 'the owner’s session ended');

    await visitor.page.getByRole('link', { name: 'Sign in' }).last().click();
    await visitor.page.getByLabel('E-mail').fill(email);
    await visitor.page.getByLabel('Password').fill('a new long password');
    await visitor.page.getByRole('button', { name: 'Sign in' }).click();
    await visitor.page.getByRole('heading', { name: 'Your apps' }).waitFor();
    t.same(visitor.problems, [], 'no CSP violation or page error');
  });

  await t.test('security: two-factor sign-in, an access token, the audit log, deleting the account', async (t) => {
    const { page, problems } = await openDashboard(t, browser);
    const address = uniqueEmail('careful');
    await signUp(page, url, address);
    const shopId = await createAppInPage(page, 'Careful shop');

    await page.goto(`${url}/account`);
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const secret = (await page.getByTestId('totp-secret').getAttribute('data-secret')) ?? '';
    t.match(secret, /^[A-Z2-7]{16,}$/, 'the base32 secret is shown for typing by hand');
    t.equal(await page.getByRole('img', { name: /QR code/ }).count(), 1, 'and its QR code');
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('That code is wrong').waitFor();
    await checkPage(t, page, SHOTS, 'security-setup');
    await page.getByLabel('Code from the app').fill(totpCode(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByTestId('recovery-codes').locator('li');
    await codes.first().waitFor();
    t.equal(await codes.count(), 10, 'ten recovery codes, shown once');
    const recoveryCode = ((await codes.first().textContent()) ?? '').trim();
    await page.getByText('you will not see them again').waitFor();
    await checkPage(t, page, SHOTS, 'security-recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    t.equal(await page.getByTestId('recovery-codes').count(), 0, 'gone once saved');
    t.equal(await page.getByTestId('two-factor-state').textContent(), 'On');

    await page.getByLabel('Token name').fill('CI pipeline');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent()) ?? '';
    t.match(token, /^wpt_/, 'the token is shown once');
    const asToken = { headers: { authorization: `Bearer ${token}` } };
    const made = await page.context().request.post(`${url}/api/v1/apps/${shopId}/keys`, {
      ...asToken,
      data: { scope: 'notify', name: 'Made by CI' },
    });
    t.equal(made.status(), 201, 'it acts as its user');
    await page.getByTestId('token-row').filter({ hasText: 'CI pipeline' }).waitFor();
    await page.getByRole('button', { name: 'Revoke token CI pipeline' }).click();
    await page.getByRole('button', { name: 'Revoke token', exact: true }).click();
    await waitFor(async () => (await page.getByTestId('token-row').count()) === 0, 'the token row is gone', {
      intervalMs: 100,
    });
    t.equal((await page.context().request.get(`${url}/api/v1/apps`, asToken)).status(), 401, 'refused at once');
    await page.getByTestId('audit-row').filter({ hasText: 'Access token revoked' }).waitFor();
    await checkPage(t, page, SHOTS, 'security');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.getByLabel('E-mail').fill(address);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Authentication code');
    await code.fill('123456');
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    t.match(await page.locator('#two-factor-code-error').textContent(), 'That code is wrong');
    await checkPage(t, page, SHOTS, 'sign-in-code');
    // The next step's code: the one that turned it on may still be current, and a code signs in once.
    await code.fill(totpCode(secret, 1));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByRole('heading', { name: 'Your apps' }).waitFor();

    await page.getByRole('link', { name: /Careful shop/ }).click();
    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = page.getByTestId('audit-row');
    await rows.first().waitFor();
    const keyRow = rows.filter({ hasText: 'Made by CI' });
    t.match(await keyRow.textContent(), /API key created.*key\.created.*Made by CI/, 'the key the token made');
    t.match(await keyRow.textContent(), address, 'by its user');
    await page.getByLabel('Action').selectOption('key.created');
    // The API filters: the page shows what it answers for the action once it is in.
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="audit-row"]').length === 1);
    t.equal(await rows.count(), 1, 'filtered by action');
    t.match(await rows.first().textContent(), /key\.created/);
    await page.getByLabel('Action').selectOption('');
    await checkPage(t, page, SHOTS, 'audit-log');

    await page.goto(`${url}/account`);
    await page.getByRole('button', { name: 'Delete my account…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account for good?' });
    await dialog.getByText('Careful shop').waitFor();
    await dialog.getByLabel('Password').fill(PASSWORD);
    await dialog.getByLabel('Authentication code').fill(recoveryCode);
    await dialog.getByLabel(`Type ${address} to confirm`).fill(address);
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByTestId('account-deleted').waitFor();
    t.match(new URL(page.url()).pathname, '/sign-in');
    const [left] = await sql<{ count: number }[]>`select count(*)::int as count from users where email = ${address}`;
    t.equal(left?.count, 0, 'the account is gone');
    t.same(problems, [], 'no CSP violation or page error');
  });

  t.same(problems, [], 'no CSP violation or page error');
}
