import { errorCatalogue } from '@webpush/errors';
import Fastify from 'fastify';
import t from 'tap';
import { cachingSerializerFactory } from '../src/serializer-cache.js';
import { bearer, buildTestApp, createApp, registerUser } from './helper.js';

// Response serializers are compiled once per distinct schema (src/serializer-cache.ts): routes with
// equal schemas share one function, and a route never serializes with another route's schema.

const everything = { a: 'x', b: 'y', secret: 'never sent' };
const onlyA = () => ({ type: 'object', properties: { a: { type: 'string' } } });
const onlyB = { type: 'object', properties: { b: { type: 'string' } } };

t.test('equal schemas share a serializer; each route answers with its own schema', async (t) => {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: cachingSerializerFactory } } });
  t.teardown(() => app.close());
  const serializers = new Map<string, unknown>();
  for (const [url, schema] of [
    ['/a', onlyA()],
    ['/a-again', onlyA()], // an equal schema, another object
    ['/b', onlyB],
  ] as const) {
    app.get(url, { schema: { response: { 200: schema } } }, async (_request, reply) => {
      serializers.set(url, reply.getSerializationFunction('200'));
      return everything;
    });
  }

  for (const [url, body] of [
    ['/a', '{"a":"x"}'],
    ['/a-again', '{"a":"x"}'],
    ['/b', '{"b":"y"}'],
  ] as const) {
    const response = await app.inject({ method: 'GET', url });
    t.equal(response.statusCode, 200);
    t.equal(response.body, body, `${url} answers only what its schema holds`);
  }
  t.equal(serializers.get('/a'), serializers.get('/a-again'), 'equal schemas: one compiled serializer');
  t.not(serializers.get('/a'), serializers.get('/b'), 'other schemas: another serializer');
});

t.test('the API: each route answers its own error body', async (t) => {
  const { app } = await buildTestApp(t);
  const { token } = await registerUser(app);
  const notify = await app.inject({ method: 'POST', url: '/api/v1/notify', payload: {} });
  t.equal(notify.statusCode, 401);
  t.strictSame(notify.json(), { error: errorCatalogue.UNAUTHORIZED.message, code: 'UNAUTHORIZED' });
  const missing = await app.inject({
    method: 'GET',
    url: '/api/v1/apps/00000000-0000-4000-8000-000000000000',
    headers: bearer(token),
  });
  t.equal(missing.statusCode, 404);
  t.strictSame(missing.json(), { error: errorCatalogue.NOT_FOUND.message, code: 'NOT_FOUND' });
  // Free: one app; the second is PLAN_LIMIT_EXCEEDED, whose body alone carries upgrade_url.
  await createApp(app, token, 'first');
  const second = await app.inject({
    method: 'POST',
    url: '/api/v1/apps',
    headers: bearer(token),
    payload: { name: 'second' },
  });
  t.equal(second.statusCode, 403);
  t.match(second.json(), { code: 'PLAN_LIMIT_EXCEEDED', upgrade_url: /\/pricing$/ });
});
