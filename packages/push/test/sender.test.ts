import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parsePushHosts } from '@webpush/config';
import { type FakePushService, startFakePushService, unusedPort } from '@webpush/testing';
import t, { type Test } from 'tap';
import webpush from 'web-push';
import { createPushSender, type PushOptions, type PushSender, type VapidCredentials } from '../src/index.js';

const vapid: VapidCredentials = {
  cacheKey: 'app-1',
  ...webpush.generateVAPIDKeys(),
  subject: 'mailto:ops@example.com',
};
const options: PushOptions = { ttl: 3600, urgency: 'normal' };

function senderFor(
  t: Test,
  service: FakePushService,
  extra: { timeoutMs?: number; maxSocketsPerOrigin?: number; http2?: boolean } = {},
) {
  const sender = createPushSender({ allowlist: parsePushHosts(service.hostRule), ca: service.caPem, ...extra });
  t.teardown(() => sender.close());
  return sender;
}

t.test('push sender against the stand-in push service', async (t) => {
  const service = await startFakePushService();
  t.teardown(() => service.close());

  t.test('delivers a message the stand-in decrypts and whose VAPID it verifies', async (t) => {
    const sender = senderFor(t, service);
    const sub = service.subscribe();
    const payload = JSON.stringify({ title: 'こんにちは', body: 'ünïcødé ✓' });
    const outcome = await sender.send(sub, payload, vapid, { ttl: 120, urgency: 'high', topic: 'greeting' });
    t.same(outcome, { kind: 'sent', status: 201 });
    const [message] = service.deliveredTo(sub.id);
    t.equal(message?.payload, payload);
    t.equal(message?.ttl, 120);
    t.equal(message?.urgency, 'high');
    t.equal(message?.topic, 'greeting');
    t.equal(message?.vapidPublicKey, vapid.publicKey);
    t.equal(message?.claims.aud, service.origin);
    t.equal(message?.claims.sub, vapid.subject);
    const hoursAhead = ((message?.claims.exp ?? 0) - Date.now() / 1000) / 3600;
    t.ok(hoursAhead > 11.9 && hoursAhead <= 12, `exp ${hoursAhead.toFixed(2)} h ahead`);
    t.same(service.protocolErrors, []);
  });

  t.test('sends no Topic header without a topic', async (t) => {
    const sender = senderFor(t, service);
    const sub = service.subscribe();
    t.match(await sender.send(sub, 'x', vapid, { ttl: 0, urgency: 'very-low' }), { kind: 'sent' });
    t.match(service.deliveredTo(sub.id)[0], { topic: null, ttl: 0, urgency: 'very-low' });
  });

  t.test('reuses the JWT and keep-alive connections for consecutive sends', async (t) => {
    const sender = senderFor(t, service);
    const subs = Array.from({ length: 10 }, () => service.subscribe());
    const connectionsBefore = service.connections;
    for (const sub of subs) t.match(await sender.send(sub, 'hello', vapid, options), { kind: 'sent' });
    const messages = subs.map((sub) => service.deliveredTo(sub.id)[0]);
    t.equal(new Set(messages.map((m) => m?.jwt)).size, 1, 'one JWT for the ten');
    t.equal(new Set(messages.map((m) => m?.connection)).size, 1, 'one connection for the ten');
    t.equal(service.connections - connectionsBefore, 1, 'one TLS handshake');
  });

  t.test('HTTP/2: concurrent sends are streams on one connection, each decrypted and verified', async (t) => {
    const sender = senderFor(t, service, { maxSocketsPerOrigin: 50, http2: true });
    const connectionsBefore = service.connections;
    const subs = Array.from({ length: 30 }, () => service.subscribe());
    for (const sub of subs) service.script(sub.id, { status: 201, delayMs: 20 });
    const outcomes = await Promise.all(subs.map((sub, i) => sender.send(sub, `h2 ${i}`, vapid, options)));
    t.ok(outcomes.every((o) => o.kind === 'sent'));
    const messages = subs.map((sub) => service.deliveredTo(sub.id)[0]);
    t.strictSame(
      messages.map((m) => m?.payload),
      subs.map((_, i) => `h2 ${i}`),
    );
    t.strictSame([...new Set(messages.map((m) => m?.httpVersion))], ['2.0'], 'all over HTTP/2');
    t.equal(service.connections - connectionsBefore, 1, 'one connection for 30 in flight');
    t.same(service.protocolErrors, []);
  });

  t.test('by default HTTP/1.1, never more than maxSocketsPerOrigin connections to one origin', async (t) => {
    const sender = senderFor(t, service, { maxSocketsPerOrigin: 2 });
    const connectionsBefore = service.connections;
    const subs = Array.from({ length: 12 }, () => service.subscribe());
    for (const sub of subs) service.script(sub.id, { status: 201, delayMs: 20 });
    const outcomes = await Promise.all(subs.map((sub) => sender.send(sub, 'burst', vapid, options)));
    t.ok(outcomes.every((o) => o.kind === 'sent'));
    t.equal(service.connections - connectionsBefore, 2);
    t.strictSame(
      [...new Set(subs.map((sub) => service.deliveredTo(sub.id)[0]?.httpVersion))],
      ['1.1'],
      'HTTP/1.1 although the service offers h2',
    );
  });

  t.test('maps the push service answers', async (t) => {
    const sender = senderFor(t, service);
    const cases: [Parameters<FakePushService['script']>[1], object][] = [
      [{ status: 202 }, { kind: 'sent', status: 202 }],
      [{ status: 410 }, { kind: 'expired', status: 410 }],
      [{ status: 404 }, { kind: 'expired', status: 404 }],
      [{ status: 400 }, { kind: 'failed', status: 400 }],
      [{ status: 403 }, { kind: 'failed', status: 403 }],
      [{ status: 413 }, { kind: 'failed', status: 413 }],
      [
        { status: 429, retryAfter: '7' },
        { kind: 'retry', status: 429, retryAfterMs: 7000 },
      ],
      [{ status: 500 }, { kind: 'retry', status: 500 }],
      [
        { status: 503, retryAfter: new Date(Date.now() + 60_000).toUTCString() },
        { kind: 'retry', status: 503 },
      ],
    ];
    for (const [reply, expected] of cases) {
      const sub = service.subscribe();
      service.script(sub.id, reply);
      t.match(await sender.send(sub, 'x', vapid, options), expected, `answer ${reply.status}`);
    }
    const sub = service.subscribe();
    service.script(sub.id, { status: 503, retryAfter: new Date(Date.now() + 60_000).toUTCString() });
    const outcome = await sender.send(sub, 'x', vapid, options);
    const wait = outcome.kind === 'retry' ? (outcome.retryAfterMs ?? 0) : 0;
    t.ok(wait > 55_000 && wait <= 60_000, `HTTP-date Retry-After → ${wait} ms`);
  });

  t.test('500 twice, then delivered', async (t) => {
    const sender = senderFor(t, service);
    const sub = service.subscribe();
    service.script(sub.id, { status: 500, times: 2 });
    const kinds = [];
    for (let i = 0; i < 3; i++) kinds.push((await sender.send(sub, `try ${i}`, vapid, options)).kind);
    t.same(kinds, ['retry', 'retry', 'sent']);
    t.same(
      service.deliveredTo(sub.id).map((m) => m.payload),
      ['try 2'],
    );
  });

  t.test('a push service that does not answer in time is a retry', async (t) => {
    const sender = senderFor(t, service, { timeoutMs: 300 });
    const sub = service.subscribe();
    service.script(sub.id, { status: 201, delayMs: 3000 });
    const started = Date.now();
    const outcome = await sender.send(sub, 'slow', vapid, options);
    t.match(outcome, { kind: 'retry', reason: /no answer within 300 ms/ });
    t.ok(Date.now() - started < 2000, 'gave up at the deadline');
  });

  t.test('refuses endpoints off the allowlist without a request', async (t) => {
    const sender = senderFor(t, service);
    const sub = service.subscribe();
    const received = service.received.length;
    const connections = service.connections;
    const endpoints = [
      sub.endpoint.replace('localhost', '127.0.0.1'), // same server, but not the allowed host name
      `https://localhost:${service.port + 1}/push/${sub.id}`, // allowed host, other port
      `https://localhost/push/${sub.id}`, // allowed host, default port
      sub.endpoint.replace('https:', 'http:'),
      `https://user:pw@${sub.endpoint.slice('https://'.length)}`,
      'not a url',
    ];
    for (const endpoint of endpoints) {
      t.match(
        await sender.send({ ...sub, endpoint }, 'x', vapid, options),
        { kind: 'failed', reason: /allowlist/ },
        endpoint,
      );
    }
    t.equal(service.received.length, received, 'nothing reached the stand-in');
    t.equal(service.connections, connections, 'not even a connection');
  });

  t.test('refuses malformed keys, options and payloads without a request', async (t) => {
    const sender = senderFor(t, service);
    const sub = service.subscribe();
    const connections = service.connections;
    const errors = service.protocolErrors.length;
    const refused = async (outcome: Promise<unknown>, reason: RegExp, label: string) =>
      t.match(await outcome, { kind: 'failed', reason }, label);
    await refused(
      sender.send({ ...sub, p256dh: sub.p256dh.slice(0, 40) }, 'x', vapid, options),
      /keys/,
      'short p256dh',
    );
    await refused(sender.send({ ...sub, auth: 'AAAA' }, 'x', vapid, options), /keys/, 'short auth');
    const offCurve = Buffer.alloc(65, 7);
    offCurve[0] = 4;
    await refused(
      sender.send({ ...sub, p256dh: offCurve.toString('base64url') }, 'x', vapid, options),
      /P-256/,
      'off-curve',
    );
    await refused(
      sender.send(sub, 'x', { ...vapid, privateKey: webpush.generateVAPIDKeys().privateKey }, options),
      /VAPID/,
      'VAPID pair',
    );
    await refused(sender.send(sub, 'x', { ...vapid, subject: 'ops' }, options), /subject/, 'subject');
    await refused(sender.send(sub, 'x', vapid, { ...options, ttl: -1 }), /ttl/, 'ttl');
    await refused(sender.send(sub, 'x', vapid, { ...options, topic: 'not a topic!' }), /topic/, 'topic');
    await refused(sender.send(sub, 'x'.repeat(4080), vapid, options), /payload/, 'payload');
    t.equal(service.connections, connections, 'no connection was opened');
    t.equal(service.protocolErrors.length, errors);
  });

  t.test('a refused connection is a retry', async (t) => {
    const port = await unusedPort();
    const sender = createPushSender({ allowlist: parsePushHosts(`localhost:${port}`), ca: service.caPem });
    t.teardown(() => sender.close());
    const sub = service.subscribe();
    const outcome = await sender.send(
      { ...sub, endpoint: `https://localhost:${port}/push/${sub.id}` },
      'x',
      vapid,
      options,
    );
    t.match(outcome, { kind: 'retry', reason: /ECONNREFUSED/ });
  });

  t.test('an untrusted certificate is not delivered', async (t) => {
    const sender = createPushSender({ allowlist: parsePushHosts(service.hostRule) });
    t.teardown(() => sender.close());
    const sub = service.subscribe();
    t.match(await sender.send(sub, 'x', vapid, options), { kind: 'retry', reason: /CERT|SELF_SIGNED/ });
    t.same(service.deliveredTo(sub.id), []);
  });

  t.test('close waits for sends under way, then refuses new ones', async (t) => {
    const sender: PushSender = createPushSender({ allowlist: parsePushHosts(service.hostRule), ca: service.caPem });
    const sub = service.subscribe();
    service.script(sub.id, { status: 201, delayMs: 200 });
    const pending = sender.send(sub, 'in flight', vapid, options);
    await service.waitForMessages(service.received.length + 1).catch(() => {});
    await sender.close();
    t.same(await pending, { kind: 'sent', status: 201 }, 'the send under way finished');
    t.match(await sender.send(sub, 'late', vapid, options), { kind: 'retry', reason: /closed/ });
  });

  t.test('a child process trusts the stand-in through NODE_EXTRA_CA_CERTS alone', async (t) => {
    const sub = service.subscribe();
    const child = fileURLToPath(new URL('./fixtures/send-once.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--conditions=webpush-source',
        '--import',
        'tsx',
        child,
        service.hostRule,
        JSON.stringify(sub),
        JSON.stringify(vapid),
      ],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: service.certPath } },
    );
    t.same(JSON.parse(stdout), { kind: 'sent', status: 201 });
    t.equal(service.deliveredTo(sub.id)[0]?.payload, 'from a child process');
  });

  t.test('no message was refused for its VAPID or encryption', async (t) => {
    t.same(service.protocolErrors, []);
  });
});

t.test('a push service that speaks only HTTP/1.1: the sender falls back to a keep-alive pool', async (t) => {
  const service = await startFakePushService({ http2: false });
  t.teardown(() => service.close());
  const sender = senderFor(t, service, { maxSocketsPerOrigin: 4, http2: true });
  const subs = Array.from({ length: 12 }, () => service.subscribe());
  for (const sub of subs) service.script(sub.id, { status: 201, delayMs: 20 });
  const outcomes = await Promise.all(subs.map((sub, i) => sender.send(sub, `h1 ${i}`, vapid, options)));
  t.ok(outcomes.every((o) => o.kind === 'sent'));
  const messages = subs.map((sub) => service.deliveredTo(sub.id)[0]);
  t.strictSame(
    messages.map((m) => m?.payload),
    subs.map((_, i) => `h1 ${i}`),
    'each one decrypted',
  );
  t.strictSame([...new Set(messages.map((m) => m?.httpVersion))], ['1.1'], 'all over HTTP/1.1');
  t.ok(service.connections <= 4, `at most maxSocketsPerOrigin connections (${service.connections})`);
  t.ok(service.connections > 1, 'concurrent sends use several connections, not one queue');
  t.same(service.protocolErrors, []);
});
