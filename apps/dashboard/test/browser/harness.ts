import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type BuildOptions, buildApp } from '@webpush/api/app';
import { type TestContext, testAppBuilder, unusedPort } from '@webpush/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Test } from 'tap';

/*
 * The dashboard in real headless Chromium (@webpush/testing/browser launches it), served by the real
 * API from apps/dashboard/dist (`pnpm test` builds it first), on PostgreSQL and Redis of its own.
 */

export { fakePushScript, launchChromium } from '@webpush/testing/browser';

const buildTestApp = testAppBuilder<BuildOptions>(buildApp);

export const PASSWORD = 'correct horse battery';

export interface RunningDashboard {
  ctx: TestContext;
  /** The one origin of the dashboard and the API, e.g. http://127.0.0.1:41234 (also PUBLIC_URL). */
  url: string;
}

/** The API (serving the built dashboard) on a port chosen up front, so PUBLIC_URL can name it. */
export async function startDashboard(
  t: Test,
  env: Record<string, string> = {},
  options: { pushExtraCa?: string } = {},
): Promise<RunningDashboard> {
  const port = await unusedPort();
  const url = `http://127.0.0.1:${port}`;
  const ctx = await buildTestApp(
    t,
    {
      PUBLIC_URL: url,
      RATE_LIMIT_REGISTER_MAX: '1000',
      RATE_LIMIT_LOGIN_MAX: '1000',
      RATE_LIMIT_API_KEY_MAX: '1000',
      ...env,
    },
    options,
  );
  await ctx.app.listen({ port, host: '127.0.0.1' });
  return { ctx, url };
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Content-Security-Policy violations and uncaught page errors seen so far: a test wants none. */
  problems: string[];
}

/** A fresh browser context (no cookies) and page; CSP violations and page errors are recorded. */
export async function openDashboard(
  t: Test,
  browser: Browser,
  options: {
    width?: number;
    height?: number;
    initScript?: string;
    grantOrigin?: string;
    /** The browser's language (Accept-Language and navigator.languages); default en-US. */
    locale?: string;
    javaScriptEnabled?: boolean;
  } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1440, height: options.height ?? 900 },
    locale: options.locale ?? 'en-US',
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  t.teardown(() => context.close());
  if (options.grantOrigin) await context.grantPermissions(['notifications'], { origin: options.grantOrigin });
  const page = await context.newPage();
  if (options.initScript) await page.addInitScript(options.initScript);
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, context, problems };
}

let emails = 0;
export const uniqueEmail = (label: string) => `${label}-${process.pid}-${++emails}@example.com`;

/** Registers through the sign-up page and waits for the apps page. */
export async function signUp(page: Page, url: string, email: string): Promise<void> {
  await page.goto(`${url}/sign-up`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your apps' }).waitFor();
}

/** Creates an app from the apps page and waits for its overview; returns its id. */
export async function createAppInPage(page: Page, name: string): Promise<string> {
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create app' }).click();
  await page.getByRole('heading', { name }).waitFor();
  const id = /\/apps\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
  if (!id) throw new Error(`not on an app overview: ${page.url()}`);
  return id;
}

/**
 * axe-core on the page as it is now: no serious or critical violation (WCAG 2.x A and AA rules).
 * Legacy mode runs axe in the page itself. The default opens a blank page for every check, to merge
 * results across cross-origin frames, which the dashboard has none of: 0.87 s a check against
 * 1.62 s (18 checks of languages.test.ts), with the same violations found.
 */
export async function assertAccessible(t: Test, page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .setLegacyMode(true)
    .analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact,
      targets: violation.nodes.map((node) => node.target.join(' ')).slice(0, 3),
    }));
  t.same(serious, [], `${name}: no serious or critical accessibility violations`);
}

/** The page is no wider than the viewport (nothing to scroll sideways at 375 px). */
export async function assertNoHorizontalScroll(t: Test, page: Page, name: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  t.ok(overflow <= 0, `${name}: no horizontal scrolling (${overflow} px too wide)`);
}

/** Writes a full-page screenshot to `path`. */
export async function screenshot(page: Page, path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
}

/**
 * Where the browser tests write their screenshots, for a person to open: `$SCREENSHOT_DIR`, one
 * folder per test file. Unset (as in CI), they write none: a screenshot asserts nothing, and the
 * 1440 px passes that exist only for them cost a quarter of the slowest file's time.
 */
export const screenshotDir = process.env.SCREENSHOT_DIR || undefined;

/** A screenshot to `$SCREENSHOT_DIR/<folder>/<name>` when that is set; nothing otherwise. */
export async function capture(page: Page, folder: string, name: string): Promise<void> {
  if (screenshotDir !== undefined) await screenshot(page, join(screenshotDir, folder, name));
}

/**
 * The page has drawn what it loads: no skeleton or busy region is left and its fonts are in. A
 * condition of the page itself, where `networkidle` waited a fixed 500 ms after the last request.
 */
export async function waitForSettled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.querySelector('.skeleton-group, [aria-busy="true"]') === null && document.fonts.status === 'loaded',
  );
}

/**
 * A page as a person would look at it: axe at 1440 px, then no sideways scrolling at 375 px, with a
 * screenshot at each width when they are asked for (`$SCREENSHOT_DIR/<folder>/<name>-1440.png`,
 * `-375.png`); the viewport is 1440 px again after. axe runs at one width, the wide one: its WCAG
 * A/AA rules read the markup and its colours, which the width does not change here
 * (languages.test.ts runs it at 375 px on the main pages).
 */
export async function checkPage(t: Test, page: Page, folder: string, name: string): Promise<void> {
  await assertAccessible(t, page, `${name} at 1440 px`);
  await capture(page, folder, `${name}-1440.png`);
  await page.setViewportSize({ width: 375, height: 800 });
  await assertNoHorizontalScroll(t, page, `${name} at 375 px`);
  await capture(page, folder, `${name}-375.png`);
  await page.setViewportSize({ width: 1440, height: 900 });
}
