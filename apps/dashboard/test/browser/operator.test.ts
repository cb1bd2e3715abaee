import { type MailServer, startMailServer } from '@webpush/testing';
import t from 'tap';
import {
  capture,
  checkPage,
  launchChromium,
  openDashboard,
  PASSWORD,
  signUp,
  startDashboard,
  uniqueEmail,
} from './harness.js';

/*
 * The operator console in real Chromium against the real API and a real SMTP server: a customer
 * asks for a plan on the pricing page, the operator is e-mailed, grants it in the console in one
 * click, and the customer's account shows the new plan; suspending signs the customer out and
 * resuming lets them back in. A customer never sees the console. axe, and screenshots at 375 and
 * 1440 px with SCREENSHOT_DIR, in Japanese and English.
 */

const SHOTS = 'operator';
const OPERATOR_EMAIL = 'operator-inbox@example.com';

const browser = await launchChromium(t);
if (browser) {
  const mail: MailServer = await startMailServer();
  t.teardown(() => mail.close());
  const { ctx, url } = await startDashboard(t, { ...mail.env, OPERATOR_EMAIL });
  const sql = ctx.database.sql;
  const customer = await openDashboard(t, browser);
  const operator = await openDashboard(t, browser);
  const customerEmail = uniqueEmail('customer');
  const operatorEmail = uniqueEmail('operator');

  await t.test('a customer asks for the Pro plan on the pricing page; the operator is e-mailed', async (t) => {
    const { page } = customer;
    await signUp(page, url, customerEmail);
    await page.getByRole('link', { name: 'Pricing' }).click();
    await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
    t.notOk(await page.getByText('pnpm admin').count(), 'no shell command on the pricing page');
    t.equal(await page.getByRole('link', { name: 'Console' }).count(), 0, 'a customer has no console link');
    await checkPage(t, page, SHOTS, 'pricing-en');

    await page.getByRole('button', { name: 'Request the Pro plan' }).click();
    const dialog = page.getByRole('dialog', { name: 'Request the Pro plan?' });
    await dialog.waitFor();
    await dialog.getByLabel('Note to the operator (optional)').fill('We launch next month');
    await capture(page, SHOTS, 'pricing-request-dialog-en-1440.png');
    await dialog.getByRole('button', { name: 'Send the request' }).click();
    const status = page.getByRole('status').filter({ hasText: 'You asked for pro' });
    await status.waitFor();
    await page.getByText('Requested', { exact: true }).waitFor();

    const message = await mail.waitFor(OPERATOR_EMAIL, { matching: (m) => m.text.includes(customerEmail) });
    t.match(message.text, 'We launch next month');
    t.ok(message.text.split('\n').includes(`${url}/operator`), 'the console link on a line of its own');

    await page.goto(`${url}/account`);
    await page.getByText('You asked for the pro plan').waitFor();
    t.notOk(await page.getByText('pnpm admin').count(), 'no shell command on the account page');
  });

  await t.test('a customer who opens /operator sees "not found", and the API refuses them', async (t) => {
    const { page } = customer;
    await page.goto(`${url}/operator`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    const answer = await page.evaluate(async () => (await fetch('/api/v1/operator/tenants')).status);
    t.equal(answer, 403);
  });

  await t.test('the operator grants the request in one click; the customer’s plan changes', async (t) => {
    const { page } = operator;
    await signUp(page, url, operatorEmail);
    await sql`update users set role = 'operator' where email = ${operatorEmail}`;
    await page.reload();
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Operator console', level: 1 }).waitFor();
    const requests = page.getByRole('region', { name: 'Plan requests' });
    await requests.getByText(customerEmail).waitFor();
    t.match(await requests.textContent(), 'We launch next month');
    const row = page.getByTestId('tenant-row').filter({ hasText: customerEmail });
    t.equal(await row.getByRole('combobox').inputValue(), 'free');
    await checkPage(t, page, SHOTS, 'operator-en');

    await requests.getByRole('button', { name: `Grant pro to ${customerEmail}` }).click();
    await requests.getByText('No open requests.').waitFor();
    await page.waitForFunction(
      (email) =>
        [...document.querySelectorAll<HTMLElement>('[data-testid="tenant-row"]')].some(
          (tr) => tr.textContent?.includes(email) && tr.querySelector('select')?.value === 'pro',
        ),
      customerEmail,
    );
    t.pass('the account now shows pro');

    await customer.page.goto(`${url}/account`);
    // The badge names the plan ("Pro") once the plan list is in; until then it shows the id.
    await customer.page.locator('.badge').getByText('Pro', { exact: true }).waitFor();
    const [row2] = await sql`select plan from users where email = ${customerEmail}`;
    t.equal(row2?.plan, 'pro');
  });

  await t.test('the operator changes a plan, suspends the customer (signed out), and resumes them', async (t) => {
    const { page } = operator;
    const row = page.getByTestId('tenant-row').filter({ hasText: customerEmail });
    await row.getByRole('combobox', { name: `Plan of ${customerEmail}` }).selectOption('enterprise');
    await page.waitForFunction(
      (email) =>
        [...document.querySelectorAll<HTMLElement>('[data-testid="tenant-row"]')].some(
          (tr) => tr.textContent?.includes(email) && tr.querySelector('select')?.value === 'enterprise',
        ),
      customerEmail,
    );
    const [stored] = await sql`select plan from users where email = ${customerEmail}`;
    t.equal(stored?.plan, 'enterprise');

    await row.getByRole('button', { name: `Suspend ${customerEmail}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Suspend this account?' });
    t.match(await dialog.textContent(), 'INVALID_SESSION');
    await dialog.getByRole('button', { name: 'Suspend it' }).click();
    await row.getByText('Suspended').waitFor();
    t.equal(await row.getByRole('button', { name: `Suspend ${customerEmail}` }).count(), 0);

    await customer.page.goto(`${url}/`);
    await customer.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    t.pass('the suspended customer is signed out');
    const [kept] = await sql`select count(*)::int as sessions from sessions s join users u on u.id = s.user_id
      where u.email = ${customerEmail}`;
    t.ok((kept?.sessions as number) >= 1, 'the session is kept, not deleted');

    await row.getByRole('button', { name: `Resume ${customerEmail}` }).click();
    await page.getByRole('dialog', { name: 'Resume this account?' }).getByRole('button', { name: 'Resume it' }).click();
    await row.getByText('Active').waitFor();
    await customer.page.goto(`${url}/account`);
    await customer.page.getByRole('heading', { name: 'Account', exact: true }).waitFor();
    t.pass('the same session works again');
    t.same(customer.problems, []);
    t.same(operator.problems, []);
  });

  await t.test('the console and the pricing page in Japanese, at both widths', async (t) => {
    const ja = await openDashboard(t, browser, { locale: 'ja-JP' });
    await ja.page.goto(`${url}/sign-in`);
    await ja.page.getByLabel('メールアドレス').fill(operatorEmail);
    await ja.page.getByLabel('パスワード').fill(PASSWORD);
    await ja.page.getByRole('button', { name: 'ログイン', exact: true }).click();
    await ja.page.getByRole('link', { name: '運営' }).click();
    await ja.page.getByRole('heading', { name: '運営コンソール', level: 1 }).waitFor();
    await ja.page.getByTestId('tenant-row').first().waitFor();
    await checkPage(t, ja.page, SHOTS, 'operator-ja');
    await ja.page.getByRole('link', { name: '料金プラン' }).click();
    await ja.page.getByRole('button', { name: 'Pro プランを依頼する' }).waitFor();
    await checkPage(t, ja.page, SHOTS, 'pricing-ja');
    t.same(ja.problems, []);
  });
}
