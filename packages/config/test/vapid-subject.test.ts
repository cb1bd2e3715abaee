import t from 'tap';
import { ConfigValidationError, loadConfig } from '../src/index.js';

t.test('VAPID_SUBJECT: set, or derived from PUBLIC_URL', async (t) => {
  t.equal(loadConfig({ PUBLIC_URL: 'http://localhost:3000' }).vapidSubject, 'mailto:admin@localhost');
  t.equal(loadConfig({ PUBLIC_URL: 'http://push.internal:8080/' }).vapidSubject, 'mailto:admin@push.internal');
  t.equal(loadConfig({ PUBLIC_URL: 'https://push.example.com/' }).vapidSubject, 'https://push.example.com');
  t.equal(
    loadConfig({ PUBLIC_URL: 'https://push.example.com', VAPID_SUBJECT: 'mailto:ops@example.com' }).vapidSubject,
    'mailto:ops@example.com',
  );
  t.throws(() => loadConfig({ VAPID_SUBJECT: 'ops@example.com' }), ConfigValidationError, 'neither mailto: nor https:');
});

t.test(
  'a subject Apple refuses (403 BadJwtToken): refused in production, a one-line note in development',
  async (t) => {
    const refused = [
      'mailto:admin@localhost',
      'mailto:push@app.localhost',
      'mailto:me@printer.local',
      'mailto:ops@example.com',
      'mailto:ops@push.example.org',
      'https://example.net',
      'https://localhost:8443',
      'mailto:root@server',
      'mailto: <ops@company.jp>',
      'https://192.168.1.10',
    ];
    for (const subject of refused) {
      const production = () =>
        loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://push.company.jp', VAPID_SUBJECT: subject });
      t.throws(production, { name: 'ConfigValidationError', message: /VAPID_SUBJECT=mailto:/ }, `${subject}: refused`);
      const development = loadConfig({ PUBLIC_URL: 'https://push.company.jp', VAPID_SUBJECT: subject });
      t.same(
        development.problems.filter((problem) => problem.includes('VAPID_SUBJECT')),
        [],
        `${subject}: no problem in development`,
      );
      t.equal(development.notes.length, 1, `${subject}: one note in development`);
      t.match(development.notes[0], `VAPID_SUBJECT ${subject}`);
      t.match(development.notes[0], /set VAPID_SUBJECT before going live/);
    }
    // The default derived from a public URL at an example domain is refused too.
    t.throws(() => loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://push.example.com' }), {
      message: /VAPID_SUBJECT https:\/\/push\.example\.com/,
    });

    for (const subject of ['mailto:push@company.jp', 'https://push.company.jp', 'mailto:ops@mail.example-shop.com']) {
      const config = loadConfig({
        NODE_ENV: 'production',
        PUBLIC_URL: 'https://push.company.jp',
        VAPID_SUBJECT: subject,
      });
      t.equal(config.vapidSubject, subject);
      t.notOk(
        config.problems.some((problem) => problem.includes('BadJwtToken')),
        `${subject}: accepted`,
      );
    }
    // A local trial (PUBLIC_URL on this machine) starts even with NODE_ENV=production, with the warning.
    const local = loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:3000' });
    t.equal(local.vapidSubject, 'mailto:admin@localhost');
    t.ok(local.problems.some((problem) => problem.includes('VAPID_SUBJECT=')));
    t.same(local.notes, []);
    // The default development setup: a note, not a problem.
    const defaults = loadConfig({ PUBLIC_URL: 'http://localhost:3000' });
    t.same(
      defaults.problems.filter((problem) => problem.includes('VAPID_SUBJECT')),
      [],
    );
    t.match(defaults.notes, [/^VAPID_SUBJECT mailto:admin@localhost is at localhost: fine for development/]);
  },
);

t.test('HTTPS_PROXY, HTTP_PROXY, NO_PROXY: the outbound proxy for pushes', async (t) => {
  t.equal(loadConfig({}).outboundProxy, null, 'none by default');
  t.strictSame(loadConfig({ HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: 'localhost,.corp' }).outboundProxy, {
    httpsProxy: 'http://proxy.corp:3128',
    httpProxy: null,
    noProxy: 'localhost,.corp',
  });
  t.strictSame(loadConfig({ HTTP_PROXY: 'http://user:secret@proxy.corp:3128' }).outboundProxy, {
    httpsProxy: null,
    httpProxy: 'http://user:secret@proxy.corp:3128',
    noProxy: '',
  });
  t.throws(() => loadConfig({ HTTPS_PROXY: 'proxy.corp:3128' }), { name: 'ConfigValidationError' }, 'a URL');
});
