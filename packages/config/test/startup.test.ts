import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ConfigValidationError, loadConfig } from '../src/index.js';
import { loadConfigOffThread } from '../src/startup.js';

// The worker validates its environment on a short-lived thread (startup.ts), so that TypeBox's
// heap goes with the thread. It must answer exactly what loadConfig answers.
const env = {
  NODE_ENV: 'development',
  PORT: '3999',
  PUBLIC_URL: 'https://push.example.com/',
  ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  API_KEY_PEPPER: 'p'.repeat(40),
  REDIS_CLUSTER_NODES: '127.0.0.1:7000,127.0.0.1:7001',
  PUSH_HOSTS: 'fcm.googleapis.com,.push.apple.com',
  WEBHOOK_MAX_ATTEMPTS: '5',
};

t.test('the same configuration as loadConfig, Buffers and problems included', async (t) => {
  const offThread = await loadConfigOffThread(env);
  t.strictSame(offThread, loadConfig(env));
  t.ok(Buffer.isBuffer(offThread.encryptionKey), 'the encryption key is a Buffer');
  t.equal(offThread.port, 3999);
});

t.test('a malformed setting and settings that do not go together are refused with loadConfig’s error', async (t) => {
  for (const bad of [
    { ...env, PORT: '2.5' },
    { ...env, WEBHOOK_MAX_ATTEMPTS: 'many' },
    { ...env, EVENTS_FLUSH_INTERVAL_MS: '10' },
    { ...env, NODE_ENV: 'production', DASHBOARD_DEV_SERVER: 'true' },
  ]) {
    let expected: unknown;
    try {
      loadConfig(bad);
    } catch (error) {
      expected = error;
    }
    t.type(expected, ConfigValidationError, `loadConfig refuses ${JSON.stringify(bad).slice(0, 60)}…`);
    await t.rejects(loadConfigOffThread(bad), expected as Error);
  }
});

t.test('the process that loads its configuration off the thread keeps no TypeBox heap', async (t) => {
  // Heap after a full GC, in a fresh process each way: loadConfig keeps TypeBox's schema and validator
  // (5.7 MB measured); the thread's heap ends with the thread.
  const heapAfter = (how: 'loadConfig' | 'loadConfigOffThread') => {
    const script = `
      const { ${how} } = await import(${JSON.stringify(how === 'loadConfig' ? '../src/index.ts' : '../src/startup.ts')});
      await ${how}({ NODE_ENV: 'development' });
      globalThis.gc(); globalThis.gc();
      console.log(process.memoryUsage().heapUsed);`;
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', '--conditions=webpush-source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`${how}: ${run.stderr}`);
    return Number(run.stdout.trim());
  };
  const kept = heapAfter('loadConfig');
  const offThread = heapAfter('loadConfigOffThread');
  t.ok(
    kept - offThread > 3_000_000,
    `heap after start-up: ${(kept / 1e6).toFixed(1)} MB with loadConfig, ${(offThread / 1e6).toFixed(1)} MB off the thread`,
  );
});
