import {
  bearer,
  createSelfSignedCertificate,
  startConnectProxy,
  startWebhookReceiver,
  waitFor,
} from '@webpush/testing';
import { createWebhookClient, isLocalhostName, type NameResolver, proxyFor } from '@webpush/webhooks';
import t from 'tap';
import { deliveryHarness } from '../helper.js';

// Webhooks through an outbound proxy (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as pushes), with the
// webhook address rules kept: the receiver's name is resolved and checked here before the proxy is
// asked for a tunnel to it by that name (docs/security.md, "Webhooks behind an outbound proxy").
// A local CONNECT proxy tunnels hooks.company.jp:443 to a local HTTPS receiver and refuses anything
// else, so no test traffic leaves this machine.
const HOOKS = 'hooks.company.jp';
const receiver = await startWebhookReceiver(createSelfSignedCertificate('localhost', 30, [HOOKS]));
t.teardown(() => receiver.close());
const proxy = await startConnectProxy({ routes: { [`${HOOKS}:443`]: receiver.port } });
t.teardown(() => proxy.close());

/**
 * The receivers' names as a name server would answer them. The public address is given only to the check made before the proxy is asked; a connection's own lookup —
 * which only a direct connection makes — gets 127.0.0.1, which the address rule refuses, so even a
 * broken proxy path could not connect anywhere but here.
 */
const lookups: string[] = [];
const resolve: NameResolver = async (hostname) => {
  lookups.push(hostname);
  if (isLocalhostName(hostname))
    throw Object.assign(new Error(`${hostname} is a local name`), { code: 'EREFUSEDADDRESS' });
  const beforeProxy = new Error().stack?.includes('checkBeforeProxy') ?? false;
  if (hostname === HOOKS) return [{ address: beforeProxy ? '93.184.215.14' : '127.0.0.1', family: 4 }];
  if (hostname === 'intranet.company.jp') return [{ address: '10.20.30.40', family: 4 }];
  // One public address beside a private one: the proxy could connect to either.
  if (hostname === 'mixed.company.jp')
    return [
      { address: '203.0.113.10', family: 4 },
      { address: '10.20.30.41', family: 4 },
    ];
  if (hostname === 'metadata.company.jp') return [{ address: '169.254.169.254', family: 4 }];
  throw Object.assign(new Error(`queryA ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

const client = (noProxy = '', allowedHosts: string[] = []) =>
  createWebhookClient({
    allowedHosts,
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 4_000,
    ca: receiver.caPem,
    resolve,
    proxy: { httpsProxy: proxy.url, httpProxy: null, noProxy },
  });

const request = (url: string) => ({
  url,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_1',
  body: '{"n":1}',
});

t.test('a public receiver: resolved and checked here, then reached through a CONNECT tunnel by its name', async (t) => {
  const webhooks = client();
  t.teardown(() => webhooks.close());
  receiver.expect('/public', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  proxy.tunnels.length = 0;
  const result = await webhooks.send(request(`https://${HOOKS}/public`));
  t.match(result, { ok: true, status: 200, error: null });
  t.strictSame(proxy.tunnels, [`${HOOKS}:443`], 'the tunnel asked for by name');
  const [delivered] = receiver.requestsTo('/public');
  t.ok(delivered?.verified, 'signed, and the signature checks');
});

t.test('names with any non-public address are refused before the proxy is asked', async (t) => {
  const webhooks = client();
  t.teardown(() => webhooks.close());
  proxy.tunnels.length = 0;
  for (const host of ['intranet.company.jp', 'metadata.company.jp', 'mixed.company.jp']) {
    const result = await webhooks.send(request(`https://${host}/x`));
    t.match(result, { ok: false, status: null, error: /^EREFUSEDADDRESS: .*non-public address/ }, host);
  }
  t.match(await webhooks.send(request('https://gone.company.jp/x')), { ok: false, error: /ENOTFOUND/ });
  t.match(await webhooks.send(request('https://localhost/x')), { ok: false, error: /refused|local name/ });
  t.match(await webhooks.send(request('https://10.0.0.7/x')), { ok: false, error: 'refused URL: refused_address' });
  t.match(await webhooks.send(request('https://[::1]/x')), { ok: false, error: /refused/ });
  t.strictSame(proxy.tunnels, [], 'the proxy was never asked');
});

t.test('NO_PROXY: a listed receiver is reached directly, with the connect-time address check', async (t) => {
  const webhooks = client(`.company.jp`);
  t.teardown(() => webhooks.close());
  proxy.tunnels.length = 0;
  lookups.length = 0;
  const result = await webhooks.send(request(`https://${HOOKS}/direct`));
  // Directly, the connection's own lookup is what is checked (here it gets 127.0.0.1: refused).
  t.match(result, { ok: false, status: null, error: /EREFUSEDADDRESS/ });
  t.strictSame(proxy.tunnels, [], 'not through the proxy');
  t.ok(lookups.includes(HOOKS));
});

t.test('WEBHOOK_ALLOWED_HOSTS receivers go through the proxy too, without the address rule', async (t) => {
  const webhooks = client('', [receiver.hostRule]);
  t.teardown(() => webhooks.close());
  receiver.expect('/exempt', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  proxy.tunnels.length = 0;
  t.match(await webhooks.send(request(`${receiver.origin}/exempt`)), { ok: true, status: 200 });
  t.strictSame(proxy.tunnels, [`localhost:${receiver.port}`]);
});

t.test('a proxy that refuses the tunnel, or is down: the attempt fails, to be retried', async (t) => {
  const refusing = await startConnectProxy(); // routes nothing but loopback names
  t.teardown(() => refusing.close());
  const viaRefusing = createWebhookClient({
    allowedHosts: [],
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 4_000,
    ca: receiver.caPem,
    resolve,
    proxy: { httpsProxy: refusing.url, httpProxy: null, noProxy: '' },
  });
  t.teardown(() => viaRefusing.close());
  t.match(await viaRefusing.send(request(`https://${HOOKS}/x`)), { ok: false, status: null, error: /403|Proxy/ });
  const down = createWebhookClient({
    allowedHosts: [],
    connectTimeoutMs: 2_000,
    totalTimeoutMs: 4_000,
    resolve,
    proxy: { httpsProxy: 'http://127.0.0.1:9', httpProxy: null, noProxy: '' },
  });
  t.teardown(() => down.close());
  t.match(await down.send(request(`https://${HOOKS}/x`)), { ok: false, status: null, error: /ECONNREFUSED/ });
});

t.test('which proxy a receiver takes', async (t) => {
  const settings = { httpsProxy: 'http://s:1', httpProxy: 'http://p:2', noProxy: 'a.jp, .b.jp,c.jp:8443' };
  t.equal(proxyFor(new URL('https://x.jp/'), settings), 'http://s:1');
  t.equal(proxyFor(new URL('http://x.jp/'), settings), 'http://p:2');
  t.equal(
    proxyFor(new URL('https://x.jp/'), { ...settings, httpsProxy: null }),
    'http://p:2',
    'HTTP_PROXY as fallback',
  );
  t.equal(proxyFor(new URL('https://a.jp/'), settings), null);
  t.equal(proxyFor(new URL('https://sub.a.jp/'), settings), 'http://s:1', 'a bare entry is that name only');
  t.equal(proxyFor(new URL('https://deep.b.jp/'), settings), null, '.b.jp: names under it');
  t.equal(proxyFor(new URL('https://c.jp:8443/'), settings), null);
  t.equal(proxyFor(new URL('https://c.jp/'), settings), 'http://s:1', 'another port');
  t.equal(proxyFor(new URL('https://x.jp/'), { ...settings, noProxy: '*' }), null);
  t.equal(proxyFor(new URL('https://x.jp/'), null), null);
});

t.test('the worker sends webhooks through HTTPS_PROXY', async (t) => {
  const harness = await deliveryHarness(t, {
    HTTPS_PROXY: proxy.url,
    WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
    WEBHOOK_RELAY_INTERVAL_MS: '100',
  });
  await harness.startInProcessWorker({ deps: { webhookCa: receiver.caPem } });
  const owner = await harness.owner();
  const put = await harness.app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${owner.app.id}/webhook`,
    headers: bearer(owner.user.token),
    payload: { url: `${receiver.origin}/worker`, events: ['notification.completed'] },
  });
  t.equal(put.statusCode, 200);
  receiver.expect('/worker', put.json<{ webhook: { secret: string } }>().webhook.secret);
  proxy.tunnels.length = 0;
  await harness.subscribe(owner, 1);
  const { id } = await harness.notify(owner, { title: 'Hi', body: 'through the proxy' });
  await harness.finished(owner, id);
  const [delivered] = await receiver.waitFor('/worker', 1, 10_000);
  t.ok(delivered?.verified, 'delivered and verified');
  await waitFor(() => proxy.tunnels.includes(`localhost:${receiver.port}`), 'the tunnel', { timeoutMs: 5_000 });
  t.ok(proxy.tunnels.includes(`localhost:${receiver.port}`), 'through a CONNECT tunnel of HTTPS_PROXY');
});
