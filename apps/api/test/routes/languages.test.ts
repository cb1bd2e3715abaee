import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@webpush/config';
import { type MailServer, type ReceivedMail, startMailServer } from '@webpush/testing';
import Fastify from 'fastify';
import t, { type Test } from 'tap';
import { negotiateLanguage } from '../../src/languages.js';
import configPlugin from '../../src/plugins/app/config.js';
import errorHandler from '../../src/plugins/app/error-handler.js';
import cookiePlugin from '../../src/plugins/external/cookie.js';
import dashboardRoutes from '../../src/site/dashboard/index.js';
import { assertError, TEST_PUBLIC_URL } from '../assertions.js';
import { bearer, buildTestApp, uniqueEmail } from '../helper.js';

// docs/accounts.md and docs/dashboard.md: pages by Accept-Language until a pick, e-mails in the account's language.

const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

// The account e-mails: a real SMTP server reads them back.
const mail: MailServer = await startMailServer();
t.teardown(() => mail.close());
const ctx = await buildTestApp(t, { ...mail.env, RATE_LIMIT_REGISTER_MAX: '1000', RATE_LIMIT_LOGIN_MAX: '1000' });
const { app } = ctx;

t.test('Accept-Language: Japanese when the browser prefers it among ja and en, English otherwise', async (t) => {
  const cases: [string | undefined, 'ja' | 'en'][] = [
    [undefined, 'en'],
    ['', 'en'],
    ['ja', 'ja'],
    ['ja-JP', 'ja'],
    ['JA-jp,ja;q=0.9,en;q=0.8', 'ja'],
    ['en-US,en;q=0.9,ja;q=0.8', 'en'],
    ['en;q=0.5, ja;q=0.9', 'ja'],
    ['fr-FR, ja;q=0.5', 'ja'],
    ['fr, de', 'en'],
    ['ja;q=0, en', 'en'],
    ['*', 'en'],
    ['jav, ja-x;q=0.1', 'ja'],
    ['garbage;;;,,', 'en'],
  ];
  for (const [header, expected] of cases) t.equal(negotiateLanguage(header), expected, `${header ?? '(none)'}`);
});

function fixtureDist(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-dist-'));
  mkdirSync(join(dir, 'assets'));
  const page = (lang: string, text: string) => `<!doctype html><html lang="${lang}"><body>${text}</body></html>`;
  writeFileSync(join(dir, 'index.html'), page('en', 'app'));
  writeFileSync(join(dir, 'index.ja.html'), page('ja', 'app'));
  writeFileSync(join(dir, 'pricing.html'), page('en', 'Plans'));
  writeFileSync(join(dir, 'pricing.ja.html'), page('ja', 'プラン'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function dashboardApp(t: Test, distDir: string) {
  const app = Fastify({ logger: false });
  await app.register(configPlugin, { config: loadConfig({ PUBLIC_URL: 'http://localhost:3000' }) });
  await app.register(cookiePlugin);
  await app.register(errorHandler);
  await app.register(dashboardRoutes, { distDir });
  t.teardown(() => app.close());
  return app;
}

t.test('GET /pricing answers the prerendered page in the language asked for, with Vary', async (t) => {
  const app = await dashboardApp(t, fixtureDist(t));
  const get = (url: string, headers: Record<string, string>) =>
    app.inject({ method: 'GET', url, headers: { accept: 'text/html', ...headers } });

  const ja = await get('/pricing', { 'accept-language': 'ja,en-US;q=0.9' });
  t.equal(ja.statusCode, 200);
  t.match(ja.body, '<html lang="ja">');
  t.match(ja.body, 'プラン');
  t.equal(ja.headers.vary, 'Accept-Language');
  t.equal(ja.headers['content-language'], 'ja');

  const en = await get('/pricing', { 'accept-language': 'en-GB,en;q=0.9' });
  t.match(en.body, '<html lang="en">');
  t.match(en.body, 'Plans');
  t.equal(en.headers.vary, 'Accept-Language');

  t.match((await get('/pricing', {})).body, '<html lang="en">', 'no Accept-Language: English');

  // A language picked in the dashboard (the wp_lang cookie) wins over the browser's.
  const picked = await get('/pricing', { 'accept-language': 'ja', cookie: 'wp_lang=en' });
  t.match(picked.body, '<html lang="en">');
  t.match((await get('/pricing', { 'accept-language': 'en', cookie: 'wp_lang=ja' })).body, '<html lang="ja">');
  t.match((await get('/pricing', { 'accept-language': 'ja', cookie: 'wp_lang=fr' })).body, '<html lang="ja">');

  // The dashboard and its client routes too.
  t.match((await get('/', { 'accept-language': 'ja' })).body, '<html lang="ja">');
  t.match((await get('/apps/x/send', { 'accept-language': 'ja' })).body, '<html lang="ja">');
  t.match((await get('/apps/x/send', { 'accept-language': 'en' })).body, '<html lang="en">');
});

t.test('a dist without the Japanese pages still answers them with <html lang="ja">', async (t) => {
  const dir = fixtureDist(t);
  rmSync(join(dir, 'pricing.ja.html'));
  const app = await dashboardApp(t, dir);
  const answer = await app.inject({ method: 'GET', url: '/pricing', headers: { 'accept-language': 'ja' } });
  t.match(answer.body, '<html lang="ja">');
});

const register = (payload: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/v1/auth/register', headers, payload });
const hasLink = (page: string) => (message: ReceivedMail) => message.text.includes(`${TEST_PUBLIC_URL}${page}?token=`);

/** The link stands on a line of its own in the text, and is the HTML part's link too. */
function assertLink(t: Test, message: ReceivedMail, page: string) {
  const line = message.text.split('\n').find((text) => text.startsWith(`${TEST_PUBLIC_URL}${page}?token=`));
  t.ok(line && !/\s/.test(line), 'the link is a line of its own');
  t.ok(typeof message.parsed.html === 'string' && message.parsed.html.includes(`href="${line}"`), 'HTML links it');
}

t.test('registering from a Japanese browser: a Japanese account and a Japanese verification e-mail', async (t) => {
  const email = uniqueEmail('ja');
  const answer = await register({ email, password: 'correct horse battery' }, { 'accept-language': 'ja-JP,ja;q=0.9' });
  t.equal(answer.statusCode, 201);
  t.equal(answer.json().user.language, 'ja');
  const message = await mail.waitFor(email, { matching: hasLink('/verify-email') });
  t.match(message.parsed.subject, JAPANESE, 'subject in Japanese');
  t.match(message.text, 'メールアドレス');
  t.notMatch(message.text, /Confirm|account/, 'no English in it');
  t.match(String(message.parsed.html), '<html lang="ja">');
  assertLink(t, message, '/verify-email');
});

t.test('registering from an English browser: English only', async (t) => {
  const email = uniqueEmail('en');
  const answer = await register({ email, password: 'correct horse battery' }, { 'accept-language': 'en-US,en' });
  t.equal(answer.json().user.language, 'en');
  const message = await mail.waitFor(email, { matching: hasLink('/verify-email') });
  t.match(message.parsed.subject, /Confirm your e-mail/);
  t.notMatch(message.text, JAPANESE, 'no Japanese in it');
  t.notMatch(String(message.parsed.html), JAPANESE);
  t.match(String(message.parsed.html), '<html lang="en">');
  assertLink(t, message, '/verify-email');
});

t.test('the dashboard’s pick (cookie, or the body’s language) decides over Accept-Language', async (t) => {
  const byCookie = await register(
    { email: uniqueEmail('cookie'), password: 'correct horse battery' },
    { 'accept-language': 'en', cookie: 'wp_lang=ja' },
  );
  t.equal(byCookie.json().user.language, 'ja');
  const byBody = await register(
    { email: uniqueEmail('body'), password: 'correct horse battery', language: 'en' },
    { 'accept-language': 'ja', cookie: 'wp_lang=ja' },
  );
  t.equal(byBody.json().user.language, 'en');
  assertError(
    t,
    await register({ email: uniqueEmail('bad'), password: 'correct horse battery', language: 'fr' }),
    'INVALID_INPUT',
  );
});

t.test('PATCH /auth/me changes the language, and the next e-mail follows it', async (t) => {
  const email = uniqueEmail('switch');
  const registered = await register({ email, password: 'correct horse battery' }, { 'accept-language': 'en' });
  const { token, user } = registered.json() as { token: string; user: { id: string; language: string } };
  t.equal(user.language, 'en');
  const patch = (payload: unknown, headers: Record<string, string> = bearer(token)) =>
    app.inject({ method: 'PATCH', url: '/api/v1/auth/me', headers, payload: payload as object });

  const changed = await patch({ language: 'ja' });
  t.equal(changed.statusCode, 200);
  t.strictSame(changed.json(), { user: { ...user, language: 'ja' } });
  const me = await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) });
  t.equal(me.json().user.language, 'ja', 'GET /auth/me says so');

  await app.inject({ method: 'POST', url: '/api/v1/auth/password-reset', payload: { email } });
  const reset = await mail.waitFor(email, { matching: hasLink('/reset-password') });
  t.match(reset.parsed.subject, 'パスワードの再設定');
  t.notMatch(reset.text, /Someone|choose a new/, 'no English in it');
  assertLink(t, reset, '/reset-password');

  assertError(t, await patch({ language: 'de' }), 'INVALID_INPUT');
  assertError(t, await patch({}), 'MISSING_FIELDS');
  assertError(t, await patch({ language: 'en' }, {}), 'UNAUTHORIZED');
  assertError(t, await patch({ language: 'en' }, bearer('wps_nope')), 'INVALID_SESSION');
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(token) })).json().user.language,
    'ja',
  );
});
