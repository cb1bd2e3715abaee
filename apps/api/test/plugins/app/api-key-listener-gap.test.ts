import { once } from 'node:events';
import net from 'node:net';
import { waitFor } from '@webpush/testing';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { buildApp } from '#src/app.js';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, createKey, ownerWithKey, revokeKey } from '../../helper.js';

// After its listener reconnects to a single Redis, ioredis says `ready` before it sends SUBSCRIBE
// again: a change published in between never reaches the instance. Here a proxy between one
// instance and Redis cuts the listener's connection and holds its re-sent SUBSCRIBE while a key is
// used on that instance and revoked on the other. The instance must not have cached the key
// meanwhile: it counts itself listening only once a message of its own has come back.
const ctx = await buildTestApp(t, { API_KEY_CACHE_TTL_MS: '60000', RATE_LIMIT_API_KEY_MAX: '100000' });
const direct = ctx.app;
const redis = new URL(ctx.resources.redisUrl);

/** A TCP proxy to Redis that can cut the API-key listener's connection and hold its SUBSCRIBE. */
function listenerProxy() {
  const listeners = new Set<net.Socket>();
  let holding = false;
  let held: Buffer[] = [];
  let release: (() => void) | null = null;
  let onHeld: (() => void) | null = null;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(redis.port || 6379), redis.hostname);
    let isListener = false;
    let holdingThis = false;
    client.on('data', (chunk) => {
      const text = chunk.toString('latin1').toLowerCase();
      if (text.includes('api-key-listener')) {
        isListener = true;
        listeners.add(client);
      }
      if (isListener && holding && !holdingThis && text.includes('subscribe')) {
        holdingThis = true;
        release = () => {
          holdingThis = false;
          for (const buffered of held) upstream.write(buffered);
          held = [];
        };
        onHeld?.();
      }
      if (holdingThis) held.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      listeners.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
    client.on('error', close);
    upstream.on('error', close);
  });
  return {
    server,
    /** Cuts the listener's connection; resolves once its re-sent SUBSCRIBE is held here. */
    cutAndHold() {
      holding = true;
      const heldNow = new Promise<void>((resolve) => {
        onHeld = resolve;
      });
      for (const socket of listeners) socket.destroy();
      return heldNow;
    },
    release() {
      holding = false;
      release?.();
    },
  };
}

const proxy = listenerProxy();
proxy.server.listen(0, '127.0.0.1');
await once(proxy.server, 'listening');
const { port } = proxy.server.address() as net.AddressInfo;
const proxied: FastifyInstance = await buildApp(
  { ...ctx.config, redisUrl: `redis://127.0.0.1:${port}` },
  { logger: false },
);
t.teardown(async () => {
  await proxied.close();
  proxy.server.close();
});

const vapidKey = (app: FastifyInstance, secret: string) =>
  app.inject({ method: 'GET', url: '/api/v1/vapid-public-key', headers: bearer(secret) });

t.test('a revoke published before the listener subscribed again is not missed', async (t) => {
  const owner = await ownerWithKey(direct, 'notify');
  const spare = await createKey(direct, owner.user.token, owner.app.id, 'notify');
  await waitFor(
    async () => (await vapidKey(proxied, owner.secret)).statusCode === 200 && proxied.apiKeyPrincipals.size > 0,
    'the proxied instance listens and caches',
  );

  await proxy.cutAndHold();
  // ioredis is `ready` again, its SUBSCRIBE not yet through: the key is looked up, not kept.
  t.equal((await vapidKey(proxied, spare.secret)).statusCode, 200);
  t.equal(proxied.apiKeyPrincipals.size, 0, 'nothing cached before its own message came back');
  t.equal((await revokeKey(direct, owner.user.token, owner.app.id, spare.key.id)).statusCode, 204);
  proxy.release();

  await waitFor(
    async () => (await vapidKey(proxied, owner.secret)).statusCode === 200 && proxied.apiKeyPrincipals.size > 0,
    'the proxied instance caches again once it hears its own message',
  );
  assertError(t, await vapidKey(proxied, spare.secret), 'INVALID_API_KEY');
});
