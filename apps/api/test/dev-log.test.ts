import { Writable } from 'node:stream';
import t from 'tap';
// The formatter `pnpm dev` runs the processes' output through (scripts/processes.mjs).
import { createDevLogFormatter, isViteAsset } from '../scripts/dev-log.mjs';
import { TEST_PUBLIC_URL } from './assertions.js';
import { buildTestApp, uniqueEmail } from './helper.js';

// `pnpm dev` logs, read by a person: the API's real log lines (its own logger, no SMTP_URL, so the
// e-mail is logged) go through the dev formatter. One line per request, none for Vite's files, and
// the e-mail's link alone on a line; the API's own log keeps the token out, as the contract pins.
const lines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});
const { app } = await buildTestApp(t, { LOG_LEVEL: 'info', RATE_LIMIT_REGISTER_MAX: '1000' }, { logStream });

const formatAll = () => {
  const format = createDevLogFormatter();
  return lines.flatMap((line) => format(line));
};

t.test('one readable line per request, none for the files Vite serves', async (t) => {
  lines.length = 0;
  for (const url of ['/@vite/client', '/src/main.tsx', '/node_modules/.vite/deps/react.js?v=1a2b', '/assets/app.css']) {
    await app.inject({ method: 'GET', url, headers: { accept: '*/*' } });
  }
  const plans = await app.inject({ method: 'GET', url: '/api/v1/plans' });
  t.equal(plans.statusCode, 200);
  t.ok(lines.length >= 5, `${lines.length} JSON lines written by the API (one a request)`);

  const shown = formatAll();
  t.same(
    shown.filter((line) => /@vite|\/src\/|node_modules|\/assets\//.test(line)),
    [],
    'no line for a Vite file',
  );
  const planLines = shown.filter((line) => line.includes('/api/v1/plans'));
  t.equal(planLines.length, 1, 'one line for the request, not two');
  t.match(planLines[0], /^\d\d:\d\d:\d\d INFO {2}GET \/api\/v1\/plans 200 \d+ ms$/);
  t.same(
    shown.filter((line) => line.startsWith('{')),
    [],
    'no raw JSON left',
  );
});

t.test('an e-mail written to the log: its link on a line of its own, the token only in the dev view', async (t) => {
  lines.length = 0;
  const email = uniqueEmail('devlog');
  const registered = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { email, password: 'correct horse battery' },
  });
  t.equal(registered.statusCode, 201);
  await app.mailer.settled();

  const shown = formatAll();
  const heading = shown.find((line) => line.includes(`e-mail to ${email}`));
  t.ok(heading, 'who the e-mail is to, and its subject');
  const link = shown
    .map((line) => line.trim())
    .find((line) => line.startsWith(`${TEST_PUBLIC_URL}/verify-email?token=`));
  t.ok(link, 'the verification link is a line of its own');
  t.match(link, /\?token=wpv_[A-Za-z0-9_-]{20,}$/, 'the whole link, token included, ready to open');
  const token = link?.split('token=')[1] ?? 'missing';
  t.notOk(
    lines.some((line) => line.includes(token)),
    'the API log itself never carries the token',
  );
  t.ok(
    shown.some((line) => line.includes('whole message: ')),
    'where the whole message is',
  );
});

t.test('what counts as a Vite file', async (t) => {
  for (const url of ['/@vite/client', '/@react-refresh', '/src/app.tsx?t=1', '/favicon.svg', '/@fs/x/y.js'])
    t.ok(isViteAsset(url), url);
  for (const url of ['/', '/pricing', '/apps/1/keys', '/api/v1/apps', '/sdk/web-sdk.js?v=2', '/docs/static/index.js'])
    t.notOk(isViteAsset(url), url);
});
