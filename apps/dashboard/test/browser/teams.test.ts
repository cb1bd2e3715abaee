import { type MailServer, startMailServer, waitFor } from '@webpush/testing';
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
 * Teams in real Chromium against the real API and a real SMTP server: the owner invites from the
 * Members tab, the invited person opens the e-mail's link signed out, signs in, comes back, accepts,
 * and sees the app read-only (a viewer: no Send, no keys, no settings). Members page at 1440 and
 * 375 px, in English and Japanese.
 */

const SHOTS = 'teams';

const browser = await launchChromium(t);
if (browser) {
  const mail: MailServer = await startMailServer();
  t.teardown(() => mail.close());
  const { ctx, url } = await startDashboard(t, { ...mail.env, RATE_LIMIT_SESSION_WRITE_MAX: '1000' });
  const sql = ctx.database.sql;
  const owner = await openDashboard(t, browser);
  const ownerEmail = uniqueEmail('owner');
  const viewerEmail = uniqueEmail('viewer');
  let appId = '';

  await t.test('the owner invites a viewer from the Members tab', async (t) => {
    await signUp(owner.page, url, ownerEmail);
    appId = await createAppInPage(owner.page, 'Team news');
    await owner.page.getByRole('link', { name: 'Members' }).click();
    await owner.page.getByRole('heading', { name: 'Invite someone' }).waitFor();
    await owner.page.getByRole('textbox', { name: 'E-mail' }).fill(viewerEmail);
    await owner.page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    await owner.page.getByTestId('invite-sent').waitFor();
    await owner.page.getByTestId('invitation-row').filter({ hasText: viewerEmail }).waitFor();
    t.equal(await owner.page.getByTestId('member-row').count(), 1, 'the owner alone, for now');
    await checkPage(t, owner.page, SHOTS, 'members-en');
  });

  await t.test('the invited person signs in from the link, accepts, and sees the app read-only', async (t) => {
    const message = await mail.waitFor(viewerEmail, { matching: (m) => m.text.includes('/accept-invitation?token=') });
    const link = message.text.split(/\s+/).find((word) => word.startsWith(`${url}/accept-invitation?token=`));
    t.ok(link, 'the e-mail carries the dashboard’s link');
    // The account exists and its address is verified (as the verification link would have done).
    const registered = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email: viewerEmail, password: PASSWORD },
    });
    t.equal(registered.statusCode, 201);
    await sql`update users set email_verified = true where email = ${viewerEmail}`;

    const viewer = await openDashboard(t, browser);
    await viewer.page.goto(link ?? '');
    await viewer.page.getByLabel('E-mail').fill(viewerEmail);
    await viewer.page.getByLabel('Password').fill(PASSWORD);
    await viewer.page.getByRole('button', { name: 'Sign in' }).click();
    await viewer.page.getByRole('heading', { name: 'Invitation to an app' }).waitFor();
    await viewer.page.getByRole('button', { name: 'Accept invitation' }).click();
    await viewer.page.getByRole('heading', { name: 'Team news' }).waitFor();
    t.match(viewer.page.url(), `/apps/${appId}`);

    const tabs = viewer.page.getByRole('navigation', { name: 'App', exact: true });
    await tabs.getByRole('link', { name: 'Members' }).waitFor();
    for (const hidden of ['Send', 'API keys', 'Settings', 'Try it'])
      t.equal(await tabs.getByRole('link', { name: hidden, exact: true }).count(), 0, `no ${hidden} tab`);
    await tabs.getByRole('link', { name: 'Notifications' }).click();
    await viewer.page.getByRole('heading', { name: 'Notifications' }).waitFor();
    t.equal(await viewer.page.getByRole('link', { name: 'New notification' }).count(), 0, 'no send button');
    await viewer.page.goto(`${url}/apps/${appId}/send`);
    await viewer.page.getByTestId('not-allowed').waitFor();
    await viewer.page.goto(`${url}/apps/${appId}/members`);
    await viewer.page.getByText('only the owner and admins manage its members').waitFor();
    await viewer.page.getByRole('button', { name: 'Leave' }).waitFor(); // a viewer may leave
    t.equal(await viewer.page.getByRole('heading', { name: 'Invite someone' }).count(), 0, 'no invite form');
    t.equal(await viewer.page.getByRole('button', { name: 'Remove' }).count(), 0, 'and remove nobody');
    await viewer.page.goto(url);
    await viewer.page.getByTestId('app-role').filter({ hasText: 'Viewer' }).waitFor();
  });

  await t.test('the owner sees the member and changes the role; the Members page in Japanese', async (t) => {
    await owner.page.reload();
    await owner.page.getByTestId('member-row').nth(1).waitFor();
    const [viewerRow] = await sql<{ id: string }[]>`select id from users where email = ${viewerEmail}`;
    const select = owner.page.getByLabel(`Role of ${viewerEmail}`);
    await select.selectOption('editor');
    await waitFor(async () => {
      const [row] = await sql`select role from app_members where user_id = ${viewerRow?.id ?? ''}`;
      return row?.role === 'editor';
    }, 'the member to be an editor');
    await checkPage(t, owner.page, SHOTS, 'members-en-editor');
    await owner.context.addCookies([{ name: 'wp_lang', value: 'ja', url }]);
    await owner.page.reload();
    await owner.page.getByRole('heading', { name: 'メンバーを招待' }).waitFor();
    await checkPage(t, owner.page, SHOTS, 'members-ja');
    await owner.page.goto(`${url}/accept-invitation?token=wpi_not-real`);
    await owner.page.getByRole('button', { name: '招待を受け入れる' }).click();
    await owner.page.getByRole('alert').waitFor();
    t.match(await owner.page.getByRole('alert').textContent(), '無効');
    await checkPage(t, owner.page, SHOTS, 'accept-invalid-ja');
    t.strictSame(owner.problems, [], 'no CSP violation or page error');
  });
}
