// One run of the embedded smoke test (scripts/embedded-smoke.mjs starts it, in a network namespace
// when it can): `pnpm start` with no database configured, on a fresh data directory, then a push
// through the decrypting push stand-in, a webhook retried after a 429, a rate limit, an engagement
// event, a revoked key, and a restart on the same data. One line per step; exit 1 on the first
// failure, with what was seen. Needs `pnpm build` first.
//
//   node --import tsx scripts/embedded-smoke-run.ts [--isolated]
//
// --isolated: the run must not reach the machine's PostgreSQL (127.0.0.1:5432) nor Redis (:6379).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createSelfSignedCertificate,
  type FakePushService,
  startFakePushService,
  startWebhookReceiver,
  unusedPort,
  type WebhookReceiver,
  waitForValue,
} from '@webpush/testing';
import { readEnvFile } from './env-file.mjs';

const root = new URL('..', import.meta.url).pathname;
const who = `${process.getuid?.() === 0 ? 'root' : (process.env.USER ?? `uid ${process.getuid?.()}`)}`;
const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

class StepFailed extends Error {}

/** Runs one step and prints its line: `ok` with its time, or `FAILED` with what went wrong. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const at = Date.now();
  try {
    const value = await run();
    console.log(`[smoke ${who}] ok      ${name} (${seconds(Date.now() - at)})`);
    return value;
  } catch (error) {
    console.log(`[smoke ${who}] FAILED  ${name}: ${error instanceof Error ? error.message : String(error)}`);
    throw new StepFailed(name);
  }
}

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new Error(what);
}

/** Whether something accepts a TCP connection on 127.0.0.1:`port` (within a second). */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, timeout: 1_000 });
    const done = (value: boolean) => {
      socket.destroy();
      resolve(value);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Every process whose command line names `dataDir`, or that works in it (PostgreSQL's backends). */
function processesOf(dataDir: string): string[] {
  const found: string[] = [];
  const listed = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  for (const line of listed.stdout?.split('\n') ?? []) {
    if (line.includes(dataDir) && !line.includes('embedded-smoke')) found.push(line.trim());
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dataDir)) found.push(`${entry} (works in the data directory)`);
    } catch {}
  }
  return found;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface Service {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const scratch = mkdtempSync(join(tmpdir(), 'wp-smoke-'));
// Under root PostgreSQL runs as another user, who must be able to enter the scratch folder.
chmodSync(scratch, 0o755);
const dataDir = join(scratch, 'data');
let push: FakePushService | undefined;
let receiver: WebhookReceiver | undefined;
let service: Service | undefined;

function stopGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {}
}

async function main() {
  const dotEnv = readEnvFile(join(root, '.env'));
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'REDIS_CLUSTER_NODES']) {
    check(!dotEnv[name], `.env sets ${name}: the smoke test runs the embedded mode; move .env aside and run it again`);
  }
  check(existsSync(join(root, 'apps/api/dist/server.js')), 'apps/api/dist is missing: run `pnpm build` first');

  if (process.argv.includes('--isolated')) {
    await step("the machine's PostgreSQL (127.0.0.1:5432) and Redis (:6379) cannot be reached", async () => {
      check(!(await answers(5432)), 'something answers on 127.0.0.1:5432');
      check(!(await answers(6379)), 'something answers on 127.0.0.1:6379');
    });
  }

  push = await startFakePushService();
  // The receiver's certificate has a subject name of its own (and `localhost` beside it): trusted
  // certificates with the same subject would hide one another.
  receiver = await startWebhookReceiver(createSelfSignedCertificate('webhooks.localhost', 1, ['localhost']));
  // Both stand-ins have their own throwaway certificate: the service trusts the two.
  const caFile = join(scratch, 'stand-ins-ca.pem');
  writeFileSync(caFile, `${push.caPem}\n${receiver.caPem}\n`);
  const port = await unusedPort();
  const api = `http://127.0.0.1:${port}/api/v1`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: scratch,
    EMBEDDED_DATA_DIR: dataDir,
    PORT: String(port),
    WORKER_PORT: String(await unusedPort()),
    PUBLIC_URL: `http://localhost:${port}`,
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    API_KEY_PEPPER: 'a-pepper-for-the-embedded-smoke-test-only-0123456789',
    LOG_LEVEL: process.env.SMOKE_LOG_LEVEL ?? 'warn',
    PUSH_SERVICE_HOSTS: push.hostRule,
    NODE_EXTRA_CA_CERTS: caFile,
    WEBHOOK_ALLOWED_HOSTS: receiver.hostRule,
    WEBHOOK_BACKOFF_MS: '200',
    WEBHOOK_RELAY_INTERVAL_MS: '200',
    EVENTS_FLUSH_INTERVAL_MS: '200',
    RATE_LIMIT_LOGIN_MAX: '3',
  };

  const call = async (method: string, path: string, token?: string, payload?: unknown): Promise<Answer> => {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const expect = async (status: number, method: string, path: string, token?: string, payload?: unknown) => {
    const answer = await call(method, path, token, payload);
    check(answer.status === status, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  const start = async (label: string, kept: boolean) =>
    step(label, async () => {
      // Its own process group, as a terminal gives it: Ctrl-C reaches every process in it.
      const child = spawn('pnpm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      for (const stream of [child.stdout, child.stderr]) {
        stream?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
      }
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      service = { child, output: () => output, exited };
      let gone = false;
      void exited.then(() => {
        gone = true;
      });
      await waitForValue(
        async () => (gone ? 'exited' : (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status),
        (status) => status === 200 || status === 'exited',
        'GET /readyz answers 200',
        { timeoutMs: 120_000, intervalMs: 100 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${output}`);
      });
      check(!gone, `pnpm start exited before it was ready:\n${output}`);
      const mode = /embedded mode: PostgreSQL on 127\.0\.0\.1:\d+ \((new|kept) data in /.exec(output);
      check(mode !== null, `pnpm start did not say it runs embedded:\n${output}`);
      check(mode[1] === (kept ? 'kept' : 'new'), `expected ${kept ? 'kept' : 'new'} data, the line says ${mode[1]}`);
      // The check after the stop looks for these: it must see them while they run.
      check(processesOf(dataDir).length > 0, `no process found on ${dataDir} while the service runs`);
    });

  const stop = () =>
    step('stopped with Ctrl-C: exit 0, no postgres process of this data directory left', async () => {
      const current = service;
      check(current !== undefined, 'not started');
      stopGroup(current.child, 'SIGINT');
      const code = await Promise.race([current.exited, new Promise((resolve) => setTimeout(resolve, 30_000, 'hung'))]);
      check(code === 0, `pnpm start ended with ${code}:\n${current.output()}`);
      const left = await waitForValue(
        () => processesOf(dataDir),
        (list) => list.length === 0,
        'no postgres process left',
        { timeoutMs: 10_000, intervalMs: 100 },
      ).catch(() => processesOf(dataDir));
      check(left.length === 0, `still running:\n${left.join('\n')}`);
      service = undefined;
    });

  await start('pnpm start with no DATABASE_URL or REDIS_URL: embedded, new data, /readyz 200', false);

  const pushService = push;
  const webhooks = receiver;
  const owner = await step('register → app → notify key → subscribe', async () => {
    const email = `smoke-${Date.now()}@example.com`;
    const registered = await expect(201, 'POST', '/auth/register', undefined, {
      email,
      password: 'correct horse battery',
    });
    const token = String(registered.token);
    const { app } = (await expect(201, 'POST', '/apps', token, { name: 'Smoke' })) as {
      app: { id: string; vapidPublicKey: string };
    };
    const created = (await expect(201, 'POST', `/apps/${app.id}/keys`, token, { scope: 'notify' })) as {
      secret: string;
    };
    const subscription = pushService.subscribe({ applicationServerKey: app.vapidPublicKey });
    const { endpoint, p256dh, auth } = subscription;
    const answer = (await expect(201, 'POST', '/subscribe', created.secret, { endpoint, keys: { p256dh, auth } })) as {
      subscriber: { id: string };
    };
    return { email, token, app, key: created.secret, subscription, subscriberId: answer.subscriber.id };
  });

  const delivered = async (title: string) => {
    const queued = (await expect(202, 'POST', '/notify', owner.key, { title, body: 'from the embedded mode' })) as {
      notification: { id: string; targets: number };
    };
    check(queued.notification.targets === 1, `targets ${queued.notification.targets}`);
    const acceptedAt = Date.now();
    const message = await waitForValue(
      () => pushService.deliveredTo(owner.subscription.id).find((m) => JSON.parse(m.payload).title === title),
      (found) => found !== undefined,
      `the push "${title}" arrives`,
      { timeoutMs: 30_000, intervalMs: 10 },
    );
    check(pushService.protocolErrors.length === 0, `protocol errors: ${JSON.stringify(pushService.protocolErrors)}`);
    check(
      message?.vapidPublicKey === owner.app.vapidPublicKey,
      'the push was signed with another VAPID key than the app',
    );
    return { id: queued.notification.id, firstPushMs: (message?.at ?? acceptedAt) - acceptedAt };
  };

  const webhookSecret = await step('a webhook to the local receiver (PUT /apps/{id}/webhook)', async () => {
    const { webhook } = (await expect(200, 'PUT', `/apps/${owner.app.id}/webhook`, owner.token, {
      url: `${webhooks.origin}/hook`,
      events: ['notification.completed'],
    })) as { webhook: { secret: string } };
    webhooks.expect('/hook', webhook.secret);
    webhooks.script('/hook', { status: 429, body: 'slow down' });
    return webhook.secret;
  });

  const first = await step('/notify → the push arrives, decrypted (RFC 8291) and VAPID-verified (RFC 8292)', () =>
    delivered('Embedded smoke'),
  );
  console.log(`[smoke ${who}]         first push ${first.firstPushMs} ms after the 202`);

  await step('the webhook answered 429 is tried again, then delivered and signed', async () => {
    const requests = await webhooks.waitFor('/hook', 2, 30_000).catch(async (error: Error) => {
      const { deliveries } = await expect(200, 'GET', `/apps/${owner.app.id}/webhook/deliveries`, owner.token);
      throw new Error(`${error.message}; the service's deliveries: ${JSON.stringify(deliveries)}`);
    });
    check(new Set(requests.map((r) => r.webhookId)).size === 1, 'two different events instead of one retried');
    check(
      requests.every((r) => r.verified !== null),
      `signature refused: ${requests.map((r) => r.verifyError).join(', ')}`,
    );
    check(webhookSecret.startsWith('whsec_'), 'the secret is not whsec_…');
    await waitForValue(
      async () =>
        (await expect(200, 'GET', `/apps/${owner.app.id}/webhook/deliveries`, owner.token)).deliveries as {
          status: number | null;
        }[],
      (list) => list.some((d) => d.status === 200) && list.some((d) => d.status === 429),
      'the deliveries list shows the 429 and the 200',
      { timeoutMs: 15_000, intervalMs: 100 },
    );
  });

  await step('an engagement event: POST /events shown → the notification counts shown 1', async () => {
    await expect(202, 'POST', '/events', owner.key, {
      notificationId: first.id,
      endpoint: owner.subscription.endpoint,
      type: 'shown',
    });
    await waitForValue(
      async () => (await expect(200, 'GET', `/notifications/${first.id}`, owner.key)).notification as { shown: number },
      (notification) => notification.shown === 1,
      'shown becomes 1 after the flush',
      { timeoutMs: 15_000, intervalMs: 100 },
    );
  });

  await step('a rate limit: the 4th sign-in of a minute is 429 RATE_LIMITED (RATE_LIMIT_LOGIN_MAX=3)', async () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      await expect(401, 'POST', '/auth/login', undefined, { email: owner.email, password: 'not the password' });
    }
    const refused = await call('POST', '/auth/login', undefined, { email: owner.email, password: 'not the password' });
    check(
      refused.status === 429 && refused.body.code === 'RATE_LIMITED',
      `4th: ${refused.status} ${JSON.stringify(refused.body)}`,
    );
  });

  await step('a revoked key is refused at once: 401 INVALID_API_KEY', async () => {
    const created = (await expect(201, 'POST', `/apps/${owner.app.id}/keys`, owner.token, { scope: 'full' })) as {
      key: { id: string };
      secret: string;
    };
    await expect(200, 'GET', '/vapid-public-key', created.secret); // now in the API's key cache
    await expect(204, 'DELETE', `/apps/${owner.app.id}/keys/${created.key.id}`, owner.token);
    const refused = await call('GET', '/vapid-public-key', created.secret);
    check(
      refused.status === 401 && refused.body.code === 'INVALID_API_KEY',
      `${refused.status} ${JSON.stringify(refused.body)}`,
    );
  });

  await stop();
  await start('pnpm start again on the same data directory: kept data, /readyz 200', true);

  await step('after the restart: the app, its subscriber and its key are still there, and a push arrives', async () => {
    const { app } = (await expect(200, 'GET', `/apps/${owner.app.id}`, owner.token)) as {
      app: { stats: { activeSubscribers: number } };
    };
    check(app.stats.activeSubscribers === 1, `activeSubscribers ${app.stats.activeSubscribers}`);
    await delivered('After the restart');
  });

  await stop();
  console.log(`[smoke ${who}] passed in ${seconds(Date.now() - started)}`);
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  exitCode = 1;
  if (!(error instanceof StepFailed))
    console.log(`[smoke ${who}] FAILED  ${error instanceof Error ? error.message : error}`);
  if (service) {
    const last = service.output().split('\n').slice(-40).join('\n');
    console.log(`[smoke ${who}] the service's last output:\n${last}`);
    stopGroup(service.child, 'SIGINT');
    await Promise.race([service.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    stopGroup(service.child, 'SIGKILL');
  }
  const left = processesOf(dataDir);
  if (left.length > 0) console.log(`[smoke ${who}] processes left on ${dataDir}:\n${left.join('\n')}`);
} finally {
  await push?.close();
  await receiver?.close();
  if (processesOf(dataDir).length === 0) {
    rmSync(scratch, { recursive: true, force: true });
  }
}
process.exit(exitCode);
