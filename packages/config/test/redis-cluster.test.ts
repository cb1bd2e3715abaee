import t from 'tap';
import { ConfigValidationError, loadConfig } from '../src/index.js';

t.test('REDIS_CLUSTER_NODES: unset or empty means the single Redis at REDIS_URL', async (t) => {
  t.equal(loadConfig({}).redisClusterNodes, null);
  t.equal(loadConfig({ REDIS_CLUSTER_NODES: '' }).redisClusterNodes, null);
  t.equal(loadConfig({ REDIS_CLUSTER_NODES: ' , ' }).redisClusterNodes, null);
});

t.test('REDIS_CLUSTER_NODES: comma-separated host:port seeds, IPv6 in brackets', async (t) => {
  const config = loadConfig({
    REDIS_URL: 'redis://ignored:6379',
    REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002,',
  });
  t.strictSame(config.redisClusterNodes, [
    { host: 'redis-a', port: 7000 },
    { host: '10.0.0.2', port: 7001 },
    { host: '::1', port: 7002 },
  ]);
});

t.test('REDIS_CLUSTER_NODES: an entry without a valid port is refused at boot', async (t) => {
  for (const bad of ['redis-a', 'redis-a:', 'redis-a:0', 'redis-a:70000', '::1:7000', 'redis://a:7000', 'a b:7000']) {
    t.throws(() => loadConfig({ REDIS_CLUSTER_NODES: bad }), ConfigValidationError, bad);
  }
});

t.test(
  'QUEUE_BACKEND: redis by default; postgres keeps the queues in DATABASE_URL, never with a cluster',
  async (t) => {
    t.equal(loadConfig({}).queueBackend, 'redis');
    t.equal(loadConfig({ QUEUE_BACKEND: 'postgres' }).queueBackend, 'postgres');
    t.throws(() => loadConfig({ QUEUE_BACKEND: 'postgres', REDIS_CLUSTER_NODES: 'redis-a:7000' }), {
      name: 'ConfigValidationError',
      message: /REDIS_CLUSTER_NODES cannot be used with QUEUE_BACKEND=postgres/,
    });
    t.throws(() => loadConfig({ QUEUE_BACKEND: 'kafka' }));
  },
);
