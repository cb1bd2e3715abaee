import { startConnectProxy } from '@webpush/testing';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// WNS (Edge on Windows, *.notify.windows.com), as the stand-in's `wns` mode answers from Microsoft's
// "Push notification service request and response headers"
// https://learn.microsoft.com/windows/apps/design/shell/tiles-and-notifications/push-request-response-headers
// The stand-in answers for wns2-par02p.notify.windows.com, reached through a local CONNECT proxy that
// tunnels that name to it on 127.0.0.1, so the sender sees the real host name (and treats it as WNS).
const host = 'wns2-par02p.notify.windows.com';
const harness = await deliveryHarness(t, {}, { service: 'wns', publicHost: host });
const { push, database } = harness;
const proxy = await startConnectProxy({ routes: { [`${host}:443`]: push.port } });
t.teardown(() => proxy.close());
await harness.startInProcessWorker({ sender: { proxy: { httpsProxy: proxy.url, httpProxy: null, noProxy: '' } } });

const statusOf = async (endpoint: string) =>
  (await database.sql<{ status: string }[]>`select status from subscriptions where endpoint = ${endpoint}`)[0]?.status;

t.test('200 with X-WNS-Status: received is sent; TTL 0 goes with X-WNS-Cache-Policy: no-cache', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  t.match(subscription.endpoint, /^https:\/\/wns2-par02p\.notify\.windows\.com\/push\//);
  for (const ttl of [0, 3600]) {
    const { id } = await harness.notify(owner, { title: 'Edge', body: `TTL ${ttl}`, ttl });
    t.match(await harness.finished(owner, id), { status: 'completed', sent: 1, failed: 0 }, `TTL ${ttl}: sent`);
  }
  const messages = push.received.filter((message) => message.subscriptionId === subscription.id);
  t.strictSame(
    messages.map((message) => [message.status, message.ttl, message.headers['x-wns-cache-policy']]),
    [
      [200, 0, 'no-cache'],
      [200, 3600, 'cache'],
    ],
  );
  t.strictSame(push.protocolErrors, [], 'WNS would refuse TTL 0 with its default cache policy');
  t.ok(proxy.tunnels.includes(`${host}:443`), 'reached by its public name through the proxy');
});

t.test('406 (throttled, X-WNS-CONTINUE-AFTER): retried after that many seconds, then sent', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  push.script(subscription.id, { status: 406, headers: { 'X-WNS-CONTINUE-AFTER': '1' } });
  const { id } = await harness.notify(owner, { title: 'Throttled', body: 'Edge' });
  const done = await harness.finished(owner, id);
  t.match(done, { status: 'completed', sent: 1, failed: 0 });
  const [first, second] = push.received.filter((message) => message.subscriptionId === subscription.id);
  t.equal(first?.status, 406);
  t.equal(second?.status, 200);
  const waited = (second?.at ?? 0) - (first?.at ?? 0);
  t.ok(waited >= 950, `waited ${waited} ms for X-WNS-CONTINUE-AFTER: 1`);
});

t.test('406 until the attempts run out: failed as "406 channelthrottled"', async (t) => {
  const owner = await harness.owner();
  const [subscription] = await harness.subscribe(owner, 1);
  if (!subscription) throw new Error('no subscription');
  push.script(subscription.id, { status: 406, times: Number.POSITIVE_INFINITY });
  const { id } = await harness.notify(owner, { title: 'Throttled', body: 'for good' });
  const done = await harness.finished(owner, id, 30_000);
  t.match(done, { status: 'failed', sent: 0, failed: 1 });
  t.strictSame(done.failureReasons, { '406 channelthrottled': 1 });
  t.equal(await statusOf(subscription.endpoint), 'active', 'throttling is never the subscription’s fault');
});

t.test('410 (the channel expired) and 404: the subscriptions expire', async (t) => {
  const owner = await harness.owner();
  const [expiredChannel, unknown, fine] = await harness.subscribe(owner, 3);
  if (!expiredChannel || !unknown || !fine) throw new Error('no subscriptions');
  push.script(expiredChannel.id, { status: 410 });
  push.script(unknown.id, { status: 404 });
  const { id } = await harness.notify(owner, { title: 'Edge', body: 'three' });
  t.match(await harness.finished(owner, id), { status: 'completed', sent: 1, expired: 2 });
  t.equal(await statusOf(expiredChannel.endpoint), 'expired');
  t.equal(await statusOf(unknown.endpoint), 'expired');
  t.equal(await statusOf(fine.endpoint), 'active');
});
