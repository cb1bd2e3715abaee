import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@webpush/testing';
import t from 'tap';
import { bearer, buildTestApp, ownerWithKey } from '../helper.js';

// A name server that never answers: it counts the queries it gets and drops them.
const nameServer = createSocket('udp4');
let queries = 0;
nameServer.on('message', () => {
  queries++;
});
await new Promise<void>((resolve) => nameServer.bind(0, '127.0.0.1', resolve));
t.teardown(() => nameServer.close());
const { port } = nameServer.address() as AddressInfo;

const DNS_TIMEOUT_MS = 3_000;
const ctx = await buildTestApp(t, {
  WEBHOOK_DNS_SERVERS: `127.0.0.1:${port}`,
  WEBHOOK_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS),
});
const { app } = ctx;
const owner = await ownerWithKey(app, 'full');

t.test('webhook names whose name server never answers do not delay a login', async (t) => {
  // More hanging resolutions than libuv's thread pool has threads: with getaddrinfo they would
  // hold every thread argon2 needs.
  let settled = 0;
  const puts = Array.from({ length: 8 }, (_, i) =>
    app
      .inject({
        method: 'PUT',
        url: `/api/v1/apps/${owner.app.id}/webhook`,
        headers: bearer(owner.user.token),
        payload: { url: `https://hook-${i}.never-answers.example/x`, events: ['notification.completed'] },
      })
      .finally(() => settled++),
  );
  await waitFor(() => queries >= 16, '16 DNS queries hang unanswered');

  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: owner.user.email, password: owner.user.password },
  });
  t.equal(login.statusCode, 200, 'the login answers');
  t.equal(settled, 0, 'while every webhook name is still waiting for its name server');

  // A name that does not resolve in time is accepted: every connection checks it again.
  for (const put of await Promise.all(puts)) t.equal(put.statusCode, 200);
});

t.test('local names are refused without asking a name server', async (t) => {
  const before = queries;
  for (const host of ['localhost', 'api.localhost', 'LOCALHOST.']) {
    const put = await app.inject({
      method: 'PUT',
      url: `/api/v1/apps/${owner.app.id}/webhook`,
      headers: bearer(owner.user.token),
      payload: { url: `https://${host}/x`, events: ['notification.completed'] },
    });
    t.equal(put.statusCode, 400, host);
    t.equal(put.json<{ code: string }>().code, 'INVALID_URL');
  }
  t.equal(queries, before);
});
