import { createHash } from 'node:crypto';
import type { Language } from '../../languages.js';

/*
 * GET /demo: the quickest way to see a push arrive. A newcomer pastes a `subscribe_only` key of
 * their app, clicks Subscribe and gets the stored subscription id plus a ready curl command for
 * POST /api/v1/apps/{appId}/test-notification. It looks like the dashboard (the same tokens, header,
 * panels, fields and buttons) and shows an error as the dashboard does: a message in the page's
 * language for the API's `code` (or the SDK's `reason`), with the code in small type beside it.
 * Japanese and English, like every page. Everything is inline or same-origin (/sdk/*), and the
 * Content-Security-Policy below pins exactly that; the messages travel as a JSON data block.
 */

const style = `
:root { --bg: #f6f7fb; --surface: #fff; --text: #1b1f2a; --muted: #5a6275; --line: #dfe3ec; --accent: #2f4fd8;
  --accent-dark: #2138a8; --accent-soft: #e8ecfd; --danger: #b42318; --danger-soft: #fdecea; --ok: #146c43; --ok-soft: #e6f4ec;
  --radius: 10px; color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Hiragino Sans",
  "Yu Gothic UI", "Noto Sans", "Noto Sans JP", "Noto Sans CJK JP", sans-serif; font-size: 16px; line-height: 1.5;
  color: var(--text); background: var(--bg); }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; line-height: 1.25; }
h2 { font-size: 1.2rem; margin: 0 0 .75rem; }
a { color: var(--accent-dark); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875em; }
code { background: var(--accent-soft); padding: .1em .35em; border-radius: 4px; }
pre { margin: 0; padding: .9rem 1rem; overflow-x: auto; background: #141a2e; color: #e7ebff; border-radius: 8px; }
:focus-visible { outline: none; box-shadow: 0 0 0 3px #fff, 0 0 0 5px var(--accent); border-radius: 4px; }
.container { width: 100%; max-width: 44rem; margin: 0 auto; padding: 0 1rem; }
main.container { padding-top: 1.5rem; padding-bottom: 3rem; }
.site-header { background: var(--surface); border-bottom: 1px solid var(--line); }
.header-row { display: flex; align-items: center; justify-content: space-between; gap: 1rem; min-height: 3.5rem; flex-wrap: wrap; }
.brand { display: inline-flex; align-items: center; gap: .5rem; font-weight: 700; color: var(--text); text-decoration: none; }
.brand-mark { width: 1.4rem; height: 1.4rem; border-radius: 6px; background: linear-gradient(135deg, var(--accent), #7b5cff); }
.language-picker { display: flex; gap: .125rem; }
.language-option { padding: .3rem .5rem; border: 1px solid transparent; border-radius: 6px; background: none;
  color: var(--muted); font: inherit; font-size: .85rem; cursor: pointer; }
.language-option[aria-pressed="true"] { border-color: var(--line); color: var(--text); font-weight: 600; }
.muted { color: var(--muted); }
.panel { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.25rem; margin: 0 0 1.25rem; }
.field { display: flex; flex-direction: column; gap: .3rem; margin-bottom: 1rem; }
.field label { font-weight: 600; }
.field input { font: inherit; padding: .55rem .7rem; border: 1px solid #b9c0d3; border-radius: 8px; background: var(--surface); color: var(--text); width: 100%; }
.hint { margin: 0; font-size: .875rem; color: var(--muted); }
.button-row { display: flex; gap: .75rem; flex-wrap: wrap; }
.button { display: inline-flex; align-items: center; justify-content: center; min-height: 2.5rem; padding: .45rem 1rem;
  border: 1px solid var(--line); border-radius: 8px; background: var(--surface); color: var(--text); font: inherit;
  font-weight: 600; cursor: pointer; }
.button:disabled { opacity: .55; cursor: not-allowed; }
.button-primary { background: var(--accent); border-color: var(--accent); color: #fff; }
.button-primary:hover { background: var(--accent-dark); }
.error-message { margin: .75rem 0 0; padding: .5rem .75rem; border-radius: 8px; background: var(--danger-soft); color: var(--danger); }
.error-message:empty { display: none; }
.error-code { margin-left: .5rem; font-size: .75rem; background: none; color: inherit; }
.success { padding: .5rem .75rem; border-radius: 8px; background: var(--ok-soft); color: var(--ok); }
`;

/** Words of the page, and the message for each error `code` (API) or `reason` (SDK). */
const messages: Record<Language, Record<string, string>> = {
  ja: {
    title: 'Web プッシュのデモ',
    lead: 'サイトで使うのと同じ SDK で、このブラウザをアプリの通知に購読します。',
    keyLabel: 'アプリの API キー',
    keyHint: 'subscribe_only キーで十分です。ダッシュボードの「API キー」で作れます。',
    subscribe: '購読する',
    promptTitle: 'このデモから通知を受け取りますか？',
    promptBody:
      'サイトではこのように、ブラウザに許可を求める前に訪問者に尋ねます。「通知を受け取る」を押すとブラウザが許可を求めます。',
    unsubscribe: '購読をやめる',
    state: '状態：',
    'state.unsupported': 'このブラウザは非対応',
    'state.denied': '通知がブロックされています',
    'state.prompt': '未購読（通知の許可はまだ求めていません）',
    'state.subscribed': '購読中',
    'state.unsubscribed': '未購読',
    resultTitle: '購読しました',
    subscriptionId: '購読 ID：',
    createdNew: '新しい購読者として保存しました',
    createdAgain: 'すでに保存されていました',
    testTitle: 'テスト通知を自分に送る',
    testLead: '同じアプリの full キーとアプリ ID（ダッシュボードに表示されます）を使います：',
    testNote: 'テスト通知はこのブラウザに直接送られ、何も保存・集計されません。',
    dashboard: 'ダッシュボード',
    languages: '言語',
    'local.NO_KEY': '先に API キーを貼り付けてください。',
    'reason.unsupported': 'このブラウザはプッシュ通知に対応していません。',
    'reason.permission-denied':
      '通知が許可されていません。ブラウザのサイト設定で通知を許可してください（プライベートウィンドウでは購読できないことがあります）。',
    'reason.network': 'サービスに接続できませんでした。接続を確認してもう一度お試しください。',
    'reason.service-worker':
      'ブラウザがプッシュ購読を作れませんでした。プッシュサービスに接続できないネットワークか、プライベートウィンドウの可能性があります。',
    'code.INVALID_API_KEY': 'API キーが無効です（削除された可能性があります）。',
    'code.UNAUTHORIZED': 'API キーの形式が正しくありません。',
    'code.ORIGIN_NOT_ALLOWED': 'このオリジンはアプリの許可オリジンに含まれていません。アプリの設定に追加してください。',
    'code.SUBSCRIBER_LIMIT_EXCEEDED': '購読者数がプランの上限に達しました。',
    'code.RATE_LIMITED': 'リクエストが多すぎます。1 分待ってからもう一度お試しください。',
    'code.INVALID_ENDPOINT': 'このブラウザのプッシュサービスは許可リストにありません。',
    'code.INVALID_INPUT': '入力内容が正しくありません。',
    'code.CONFIG_ERROR': 'サーバーの設定に誤りがあります。運営者に連絡してください。',
    generic: '問題が発生しました。',
  },
  en: {
    title: 'Web push demo',
    lead: 'Subscribe this browser to your app’s notifications with the same SDK your site will use.',
    keyLabel: 'API key of your app',
    keyHint: 'A subscribe_only key is enough; make one on the dashboard’s API keys tab.',
    subscribe: 'Subscribe',
    promptTitle: 'Get notifications from this demo?',
    promptBody:
      'This is how a site asks its visitors before the browser does. After “Yes, notify me” the browser asks for permission.',
    unsubscribe: 'Unsubscribe',
    state: 'State:',
    'state.unsupported': 'this browser cannot receive pushes',
    'state.denied': 'notifications are blocked',
    'state.prompt': 'not subscribed (permission not asked yet)',
    'state.subscribed': 'subscribed',
    'state.unsubscribed': 'not subscribed',
    resultTitle: 'Subscribed',
    subscriptionId: 'Subscription id:',
    createdNew: 'stored as a new subscriber',
    createdAgain: 'was already stored',
    testTitle: 'Send yourself a test notification',
    testLead: 'With a full key of the same app and the app’s id (the dashboard shows it):',
    testNote: 'The test notification is sent straight to this browser; nothing is stored or counted.',
    dashboard: 'Dashboard',
    languages: 'Language',
    'local.NO_KEY': 'Paste an API key first.',
    'reason.unsupported': 'This browser does not support push notifications.',
    'reason.permission-denied':
      'Notifications are not allowed. Allow them in the browser’s site settings (a private window may not subscribe at all).',
    'reason.network': 'The service could not be reached. Check your connection and try again.',
    'reason.service-worker':
      'The browser could not create a push subscription: this network may not reach its push service, or this is a private window.',
    'code.INVALID_API_KEY': 'The API key is not valid (it may have been revoked).',
    'code.UNAUTHORIZED': 'This does not look like an API key.',
    'code.ORIGIN_NOT_ALLOWED': 'This origin is not in the app’s allowed origins: add it in the app’s settings.',
    'code.SUBSCRIBER_LIMIT_EXCEEDED': 'Your subscribers have reached your plan’s limit.',
    'code.RATE_LIMITED': 'Too many requests. Wait a minute and try again.',
    'code.INVALID_ENDPOINT': 'This browser’s push service is not on the allowlist.',
    'code.INVALID_INPUT': 'Some of the input is not valid.',
    'code.CONFIG_ERROR': 'The server is misconfigured. Tell its operator.',
    generic: 'Something went wrong.',
  },
};

const script = `
const $ = (id) => document.getElementById(id);
const m = JSON.parse($('messages').textContent);
const WORKER = '/sdk/sw.js';
const shellQuote = (text) => "'" + text.replace(/'/g, "'\\\\''") + "'";

async function showState() {
  const state = await WebPush.getState({ serviceWorkerUrl: WORKER });
  $('state').textContent = m['state.' + state] || state;
  $('state').dataset.state = state;
}

function showResult(result) {
  $('subscriber-id').textContent = result.subscriberId;
  $('created').textContent = result.created ? m.createdNew : m.createdAgain;
  const keys = result.subscription.keys || {};
  const body = JSON.stringify({ subscription: { endpoint: result.subscription.endpoint, p256dh: keys.p256dh, auth: keys.auth } });
  $('curl').textContent = [
    'curl -X POST ' + location.origin + '/api/v1/apps/YOUR_APP_ID/test-notification \\\\',
    "  -H 'Authorization: Bearer YOUR_FULL_SCOPE_KEY' \\\\",
    "  -H 'Content-Type: application/json' \\\\",
    '  -d ' + shellQuote(body),
  ].join('\\n');
  $('result').hidden = false;
}

/** As the dashboard does: the message for the code (or reason) in the page's language, the code beside it. */
function showError(error) {
  const code = error.code || error.reason || '';
  const text = m['code.' + error.code] || m['reason.' + error.reason] || m['local.' + error.local] || error.message || m.generic;
  const box = $('error');
  box.replaceChildren();
  const message = document.createElement('span');
  message.textContent = text;
  box.append(message);
  if (code) {
    const small = document.createElement('code');
    small.className = 'error-code';
    small.textContent = code;
    box.append(small);
  }
  box.dataset.code = code || '';
}

async function run(action) {
  $('error').replaceChildren();
  $('subscribe').disabled = $('unsubscribe').disabled = true;
  try {
    await action();
  } catch (error) {
    showError(error);
  } finally {
    $('subscribe').disabled = $('unsubscribe').disabled = false;
    await showState();
  }
}

// Subscribe asks as a site should: the SDK's soft prompt first, the browser's prompt only after "yes".
$('subscribe').addEventListener('click', () =>
  run(async () => {
    const apiKey = $('key').value.trim();
    if (!apiKey) throw Object.assign(new Error(m['local.NO_KEY']), { local: 'NO_KEY' });
    const answer = await WebPush.prompt.showPrompt({
      subscribe: { baseUrl: location.origin, apiKey, serviceWorkerUrl: WORKER },
      ignoreRememberedNo: true,
      text: { title: m.promptTitle, body: m.promptBody },
    });
    if (answer.error) throw answer.error;
    if (answer.result) showResult(answer.result);
    if (answer.outcome === 'already-subscribed') {
      showResult(await WebPush.subscribe({ baseUrl: location.origin, apiKey, serviceWorkerUrl: WORKER }));
    }
  }),
);

$('unsubscribe').addEventListener('click', () =>
  run(async () => {
    await WebPush.unsubscribe({ serviceWorkerUrl: WORKER });
    $('result').hidden = true;
  }),
);

// The language switch: remembered as the dashboard remembers it (the wp_lang cookie), then the page again.
for (const button of document.querySelectorAll('[data-language]')) {
  button.addEventListener('click', () => {
    document.cookie = 'wp_lang=' + button.dataset.language + '; path=/; max-age=31536000; samesite=lax';
    location.reload();
  });
}

showState();
`;

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function render(language: Language): string {
  const t = (key: string) => escapeHtml(messages[language][key] ?? key);
  const option = (value: Language, label: string) =>
    `<button type="button" class="language-option" data-language="${value}" lang="${value}" aria-pressed="${value === language}">${label}</button>`;
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('title')} · Web Push</title>
<style>${style}</style>
</head>
<body>
<header class="site-header"><div class="container header-row">
<a class="brand" href="/"><span class="brand-mark" aria-hidden="true"></span>Web Push</a>
<nav aria-label="${t('languages')}" class="language-picker">${option('ja', '日本語')}${option('en', 'English')}</nav>
</div></header>
<main id="main" class="container">
<h1>${t('title')}</h1>
<p class="muted">${t('lead')}</p>
<section class="panel">
<div class="field">
<label for="key">${t('keyLabel')}</label>
<input id="key" placeholder="wpk_…" autocomplete="off" spellcheck="false" aria-describedby="key-hint">
<p class="hint" id="key-hint">${t('keyHint')}</p>
</div>
<div class="button-row">
<button id="subscribe" class="button button-primary" type="button">${t('subscribe')}</button>
<button id="unsubscribe" class="button" type="button">${t('unsubscribe')}</button>
</div>
<p id="error" class="error-message" role="alert"></p>
<p class="muted">${t('state')} <output id="state">…</output></p>
</section>
<section id="result" class="panel" hidden>
<h2>${t('resultTitle')}</h2>
<p class="success">${t('subscriptionId')} <code id="subscriber-id"></code> (<span id="created"></span>)</p>
<h2>${t('testTitle')}</h2>
<p>${t('testLead')}</p>
<pre id="curl" tabindex="0"></pre>
<p class="muted">${t('testNote')}</p>
</section>
<p><a href="/">${t('dashboard')}</a></p>
</main>
<script type="application/json" id="messages">${escapeJson(messages[language])}</script>
<script src="/sdk/web-sdk.js"></script>
<script src="/sdk/web-sdk-prompt.js"></script>
<script>${script}</script>
</body>
</html>
`;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export interface DemoPage {
  /** The page in each language; the route picks one per request. */
  html: Record<Language, string>;
  contentSecurityPolicy: string;
}

export function demoPage(): DemoPage {
  return {
    html: { ja: render('ja'), en: render('en') },
    contentSecurityPolicy: [
      "default-src 'none'",
      `script-src 'self' ${sha256(script)}`,
      `style-src ${sha256(style)}`,
      "connect-src 'self'",
      "worker-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}
