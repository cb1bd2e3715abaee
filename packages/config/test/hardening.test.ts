import t from 'tap';
import { isAllowedPushHost, loadConfig, parsePushHosts } from '../src/index.js';

t.test('PUSH_SERVICE_HOSTS: IPv6 entries in brackets, with or without a port', async (t) => {
  const rules = parsePushHosts('[::1]:8443,[2001:DB8:0:0::1],fcm.googleapis.com,localhost:9443');
  t.strictSame(rules, [
    { host: '::1', wildcard: false, port: 8443 },
    { host: '2001:db8::1', wildcard: false, port: 443 },
    { host: 'fcm.googleapis.com', wildcard: false, port: 443 },
    { host: 'localhost', wildcard: false, port: 9443 },
  ]);
  // Hostnames as isWellFormedPushEndpoint passes them: URL-parsed, brackets removed.
  const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, '');
  t.ok(isAllowedPushHost(rules, hostOf('https://[::1]:8443/push/x'), 8443), '[::1]:8443');
  t.notOk(isAllowedPushHost(rules, hostOf('https://[::1]/push/x'), 443), 'not another port of it');
  t.ok(isAllowedPushHost(rules, hostOf('https://[2001:db8::0:1]/push/x'), 443), 'any spelling of the address');
  t.ok(isAllowedPushHost(rules, 'localhost', 9443), 'host:port entries still parse');
});

t.test('TRUST_PROXY: off, true, a hop count, or addresses/CIDRs', async (t) => {
  t.equal(loadConfig({}).trustProxy, false);
  t.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2, 'a number is a hop count');
  t.equal(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy, '10.0.0.0/8,127.0.0.1');
});

t.test('WORKER_HOST: the worker health server listens on loopback unless told otherwise', async (t) => {
  t.equal(loadConfig({}).workerHost, '127.0.0.1');
  t.equal(loadConfig({ HOST: '0.0.0.0' }).workerHost, '127.0.0.1', 'HOST is the API’s');
  t.equal(loadConfig({ WORKER_HOST: '0.0.0.0' }).workerHost, '0.0.0.0');
});

t.test('RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: the per-app cap on new subscriptions is off unless set', async (t) => {
  t.equal(loadConfig({}).rateLimit.subscribePerAppMax, 0, 'off by default');
  t.equal(loadConfig({ RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: '600' }).rateLimit.subscribePerAppMax, 600);
});
