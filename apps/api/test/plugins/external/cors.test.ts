import t from 'tap';
import { bearer, buildTestApp, fakeSubscription, ownerWithKey } from '../../helper.js';

// /subscribe is called from customers' pages: it answers preflights and names Authorization
// explicitly (a `*` does not cover it). Dashboard routes stay same-origin.
const ctx = await buildTestApp(t);
const { app } = ctx;
const ORIGIN = 'https://customer-site.example';

const preflight = (url: string, method = 'POST') =>
  app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });

const headerList = (value: string | string[] | number | undefined): string[] =>
  String(value ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');

t.test('a preflight for /subscribe is 204 and allows Authorization and Content-Type by name', async (t) => {
  for (const method of ['POST', 'DELETE']) {
    const response = await preflight('/api/v1/subscribe', method);
    t.equal(response.statusCode, 204, method);
    const allowOrigin = response.headers['access-control-allow-origin'];
    t.ok(allowOrigin === '*' || allowOrigin === ORIGIN, `access-control-allow-origin: ${String(allowOrigin)}`);
    const allowed = headerList(response.headers['access-control-allow-headers']);
    t.ok(allowed.includes('authorization'), 'authorization named explicitly');
    t.ok(allowed.includes('content-type'), 'content-type named explicitly');
    t.ok(
      headerList(response.headers['access-control-allow-methods']).includes(method.toLowerCase()),
      `${method} allowed`,
    );
    t.not(response.headers['access-control-allow-credentials'], 'true', 'no credentials: the key is in a header');
  }
});

t.test('a bare OPTIONS on a browser route is 204 too, never a text/plain 400', async (t) => {
  for (const url of ['/api/v1/subscribe', '/api/v1/vapid-public-key']) {
    const response = await app.inject({ method: 'OPTIONS', url });
    t.equal(response.statusCode, 204, url);
    t.equal(response.body, '');
    t.ok(headerList(response.headers['access-control-allow-headers']).includes('authorization'));
  }
});

t.test('a preflight for /vapid-public-key is allowed as well', async (t) => {
  const response = await preflight('/api/v1/vapid-public-key', 'GET');
  t.equal(response.statusCode, 204);
  t.ok(response.headers['access-control-allow-origin']);
  t.ok(headerList(response.headers['access-control-allow-headers']).includes('authorization'));
});

t.test('the actual cross-origin subscribe carries access-control-allow-origin', async (t) => {
  const owner = await ownerWithKey(app, 'subscribe_only');
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: { ...bearer(owner.secret), origin: ORIGIN },
    payload: fakeSubscription(),
  });
  t.equal(response.statusCode, 201);
  const allowOrigin = response.headers['access-control-allow-origin'];
  t.ok(allowOrigin === '*' || allowOrigin === ORIGIN);
  const failed = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: { origin: ORIGIN },
    payload: {},
  });
  t.equal(failed.statusCode, 401);
  t.ok(failed.headers['access-control-allow-origin'], 'errors are readable cross-origin too');
});

t.test('dashboard routes get no CORS headers', async (t) => {
  for (const url of ['/api/v1/apps', '/api/v1/auth/login', '/api/v1/auth/me']) {
    const response = await preflight(url, 'POST');
    t.equal(response.headers['access-control-allow-origin'], undefined, `no allow-origin on ${url} preflight`);
    t.equal(response.headers['access-control-allow-headers'], undefined);
    const actual = await app.inject({ method: 'GET', url, headers: { origin: ORIGIN } });
    t.equal(actual.headers['access-control-allow-origin'], undefined, `no allow-origin on ${url}`);
  }
});

t.test('/events answers its preflight and carries allow-origin; server routes run no CORS at all', async (t) => {
  const response = await preflight('/api/v1/events', 'POST');
  t.equal(response.statusCode, 204);
  t.equal(response.headers['access-control-allow-origin'], '*');
  t.equal(response.headers['access-control-max-age'], '600');
  const failed = await app.inject({ method: 'POST', url: '/api/v1/events', headers: { origin: ORIGIN }, payload: {} });
  t.equal(failed.statusCode, 401);
  t.equal(failed.headers['access-control-allow-origin'], '*', 'the error is readable by the service worker');

  const notify = await app.inject({ method: 'POST', url: '/api/v1/notify', headers: { origin: ORIGIN }, payload: {} });
  t.equal(notify.statusCode, 401);
  t.equal(notify.headers['access-control-allow-origin'], undefined, 'no CORS on /notify: it is called from servers');
  const notifyPreflight = await preflight('/api/v1/notify', 'POST');
  t.equal(notifyPreflight.statusCode, 404);
  t.equal(notifyPreflight.headers['access-control-allow-origin'], undefined);
});
