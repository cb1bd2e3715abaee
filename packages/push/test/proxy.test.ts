import { parsePushHosts } from '@webpush/config';
import { startConnectProxy, startFakePushService } from '@webpush/testing';
import t from 'tap';
import webpush from 'web-push';
import { createPushSender, type VapidCredentials } from '../src/index.js';

// Pushes through an outbound proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY): a local CONNECT proxy
// that tunnels to the stand-in push service and records each tunnel it opened.
const vapid: VapidCredentials = { cacheKey: 'app-1', ...webpush.generateVAPIDKeys(), subject: 'mailto:ops@company.jp' };
const options = { ttl: 60, urgency: 'normal' as const };

const service = await startFakePushService({ http2: true });
t.teardown(() => service.close());
const proxy = await startConnectProxy();
t.teardown(() => proxy.close());

t.test('HTTPS_PROXY: every push goes through a CONNECT tunnel, kept alive for the next', async (t) => {
  const sender = createPushSender({
    allowlist: parsePushHosts(service.hostRule),
    ca: service.caPem,
    http2: true,
    proxy: { httpsProxy: proxy.url, httpProxy: null, noProxy: '' },
  });
  t.teardown(() => sender.close());
  const subscription = service.subscribe();
  for (let i = 0; i < 3; i++) {
    t.same(await sender.send(subscription, `{"n":${i}}`, vapid, options), { kind: 'sent', status: 201 });
  }
  t.strictSame(proxy.tunnels, [`localhost:${service.port}`], 'one tunnel, reused');
  t.equal(service.deliveredTo(subscription.id).length, 3, 'the stand-in decrypted and verified each');
  t.ok(
    service.deliveredTo(subscription.id).every((message) => message.httpVersion === '1.1'),
    'HTTP/1.1 through the tunnel',
  );
  t.strictSame(service.protocolErrors, []);
});

t.test('HTTP_PROXY stands in for HTTPS_PROXY; NO_PROXY hosts are reached directly', async (t) => {
  proxy.tunnels.length = 0;
  const viaHttpProxy = createPushSender({
    allowlist: parsePushHosts(service.hostRule),
    ca: service.caPem,
    proxy: { httpsProxy: null, httpProxy: proxy.url, noProxy: '' },
  });
  t.teardown(() => viaHttpProxy.close());
  t.same(await viaHttpProxy.send(service.subscribe(), '{}', vapid, options), { kind: 'sent', status: 201 });
  t.equal(proxy.tunnels.length, 1);

  const direct = createPushSender({
    allowlist: parsePushHosts(service.hostRule),
    ca: service.caPem,
    proxy: { httpsProxy: proxy.url, httpProxy: null, noProxy: 'example.org,localhost' },
  });
  t.teardown(() => direct.close());
  t.same(await direct.send(service.subscribe(), '{}', vapid, options), { kind: 'sent', status: 201 });
  t.equal(proxy.tunnels.length, 1, 'no tunnel for a NO_PROXY host');
});

t.test('a proxy that is down: the push is retried later, not failed', async (t) => {
  const sender = createPushSender({
    allowlist: parsePushHosts(service.hostRule),
    ca: service.caPem,
    timeoutMs: 2_000,
    proxy: { httpsProxy: 'http://127.0.0.1:9', httpProxy: null, noProxy: '' },
  });
  t.teardown(() => sender.close());
  const outcome = await sender.send(service.subscribe(), '{}', vapid, options);
  t.equal(outcome.kind, 'retry');
});
