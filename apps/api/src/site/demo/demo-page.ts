import { createHash } from 'node:crypto';

/*
 * GET /demo: the quickest way to see a push arrive. A newcomer pastes a `subscribe_only` key of
 * their app, clicks Subscribe and gets the stored subscription id plus a ready curl command for
 * POST /api/v1/apps/{appId}/test-notification. Everything is inline or same-origin (/sdk/*), and
 * the Content-Security-Policy below pins exactly that.
 */

const style = `
body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
input { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border: 1px solid #999; border-radius: 4px; }
button { font: inherit; margin: .75rem .5rem 0 0; padding: .5rem 1rem; border-radius: 4px; border: 1px solid #555; background: #fff; cursor: pointer; }
button.primary { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
pre { background: #f4f4f5; padding: 1rem; overflow-x: auto; font-size: .85rem; }
code { font-size: .9em; } .error { color: #b91c1c; white-space: pre-wrap; } .muted { color: #555; }
`;

const script = `
const $ = (id) => document.getElementById(id);
const WORKER = '/sdk/sw.js';
const shellQuote = (text) => "'" + text.replace(/'/g, "'\\\\''") + "'";

async function showState() {
  $('state').textContent = await WebPush.getState({ serviceWorkerUrl: WORKER });
}

function showResult(result) {
  $('subscriber-id').textContent = result.subscriberId;
  $('created').textContent = result.created ? 'stored as a new subscriber' : 'was already stored';
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

function showError(error) {
  const parts = [error.reason || error.name, error.code, error.status].filter(Boolean);
  $('error').textContent = parts.join(' ') + ': ' + error.message;
}

async function run(action) {
  $('error').textContent = '';
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

$('subscribe').addEventListener('click', () =>
  run(async () => {
    const apiKey = $('key').value.trim();
    if (!apiKey) throw new Error('paste an API key first');
    showResult(await WebPush.subscribe({ baseUrl: location.origin, apiKey, serviceWorkerUrl: WORKER }));
  }),
);

$('unsubscribe').addEventListener('click', () =>
  run(async () => {
    await WebPush.unsubscribe({ serviceWorkerUrl: WORKER });
    $('result').hidden = true;
  }),
);

showState();
`;

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Web push demo</title>
<style>${style}</style>
</head>
<body>
<h1>Web push demo</h1>
<p>Subscribe this browser to your app's notifications with the same SDK your site will use.</p>
<label for="key">API key of your app (a <code>subscribe_only</code> key is enough)</label>
<input id="key" placeholder="wpk_…" autocomplete="off" spellcheck="false">
<button id="subscribe" class="primary" type="button">Subscribe</button>
<button id="unsubscribe" type="button">Unsubscribe</button>
<p class="muted">State: <output id="state">…</output></p>
<p id="error" class="error" role="alert"></p>
<section id="result" hidden>
<p>Subscription id: <code id="subscriber-id"></code> (<span id="created"></span>)</p>
<h2>Send yourself a test notification</h2>
<p>With a <code>full</code> key of the same app and the app's id (from the dashboard, or
<code>GET /api/v1/apps</code> with your session):</p>
<pre id="curl"></pre>
<p class="muted">The test notification is sent straight to this browser; nothing is stored or counted.</p>
</section>
<script src="/sdk/web-sdk.js"></script>
<script>${script}</script>
</body>
</html>
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

export interface DemoPage {
  html: string;
  contentSecurityPolicy: string;
}

export function demoPage(): DemoPage {
  return {
    html,
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
