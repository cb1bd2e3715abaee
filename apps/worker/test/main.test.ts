import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { createIsolatedResources, type IsolatedResources, unusedPort, waitFor } from '@webpush/testing';
import t from 'tap';

const root = new URL('../../../', import.meta.url).pathname;
type Worker = ChildProcessByStdio<null, Readable, Readable>;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

interface RunningWorker {
  child: Worker;
  port: number;
  logs: LogLine[];
  output: () => string;
  /** Resolves with the first log line whose message matches, or rejects after `timeoutMs`. */
  waitForLog: (message: string, timeoutMs?: number) => Promise<LogLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startWorker(resources: IsolatedResources, env: Record<string, string> = {}): Promise<RunningWorker> {
  const port = await unusedPort();
  const child = spawn(process.execPath, ['--conditions=webpush-source', '--import', 'tsx', 'apps/worker/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      HOST: '0.0.0.0',
      PORT: String(port),
      DATABASE_URL: resources.databaseUrl,
      REDIS_URL: resources.redisUrl,
      REDIS_KEY_PREFIX: resources.redisKeyPrefix,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      API_KEY_PEPPER: randomBytes(32).toString('base64'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));

  const logs: LogLine[] = [];
  let raw = '';
  let pending = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line (e.g. a loader warning); kept in `raw` for failure messages
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
  });

  const waitForLog = (message: string, timeoutMs = 15_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = logs.find((line) => line.msg === message);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no "${message}" log line within ${timeoutMs} ms; output:\n${raw}`));
      }, timeoutMs);
      const gone = () => {
        cleanup();
        reject(new Error(`worker exited before logging "${message}"; output:\n${raw}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
        child.off('exit', gone);
      };
      waiters.add(check);
      child.once('exit', gone);
      check();
    });

  return { child, port, logs, output: () => raw, waitForLog, exited };
}

const get = (port: number, path: string) =>
  fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });

t.test('the worker process: health endpoints, ready log, clean SIGTERM', async (t) => {
  const resources = await createIsolatedResources();
  t.teardown(() => resources.dispose());
  const worker = await startWorker(resources);
  t.teardown(() => {
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  });

  const ready = await worker.waitForLog('worker ready');
  t.equal(ready.level, 30, 'logged at info level');
  t.equal(ready.service, 'worker');
  t.equal(ready.host, '127.0.0.1', 'the health server listens on loopback by default (HOST is for the API)');

  const health = await get(worker.port, '/healthz');
  t.equal(health.status, 200, '/healthz');
  t.match(health.headers.get('content-type'), /application\/json/);
  const readiness = await get(worker.port, '/readyz');
  t.equal(readiness.status, 200, `/readyz: ${await readiness.clone().text()}`);

  t.equal((await get(worker.port, '/metrics')).status, 404, '/metrics is closed without OPS_USERNAME/OPS_PASSWORD');

  const unknown = await get(worker.port, '/nope');
  t.equal(unknown.status, 404);
  t.strictSame(Object.keys((await unknown.json()) as object).sort(), ['code', 'error'], 'contract error body');

  const stoppedAt = Date.now();
  worker.child.kill('SIGTERM');
  let result: Awaited<typeof worker.exited> | undefined;
  void worker.exited.then((exit) => {
    result = exit;
  });
  await waitFor(() => result !== undefined, 'the worker exits after SIGTERM', { timeoutMs: 5_000 }).catch(() =>
    t.comment(worker.output()),
  );
  t.ok(result, 'exits within 5 s of SIGTERM');
  t.strictSame(result, { code: 0, signal: null }, 'exit code 0');
  t.ok(Date.now() - stoppedAt < 5_000);
  t.ok(
    worker.logs.some((line) => line.msg === 'worker stopped'),
    'logs that it stopped',
  );
  await t.rejects(get(worker.port, '/healthz'), 'no longer listening');
});
