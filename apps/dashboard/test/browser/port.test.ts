import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createIsolatedResources, unusedPort, waitFor } from '@webpush/testing';
import t from 'tap';
import { createAppInPage, launchChromium, openDashboard, signUp, uniqueEmail } from './harness.js';

/*
 * The service as a person starts it (`pnpm start` of the build, in development mode, as `pnpm dev`
 * runs) with PORT set and no PUBLIC_URL: PUBLIC_URL follows the port, and the dashboard works from
 * http://127.0.0.1:<PORT> too, the address a person may type, although PUBLIC_URL says localhost.
 */

const root = new URL('../../../../', import.meta.url).pathname;

const browser = await launchChromium(t);
if (browser) {
  const resources = await createIsolatedResources();
  t.teardown(() => resources.dispose());
  const port = await unusedPort();
  const workerPort = await unusedPort();
  const output: string[] = [];
  const service: ChildProcess = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    detached: true, // its own process group: the API and the worker go with it at the end
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'development',
      PORT: String(port),
      WORKER_PORT: String(workerPort),
      PUBLIC_URL: '', // as if unset, even when a .env sets it
      DATABASE_URL: resources.databaseUrl,
      REDIS_URL: resources.redisUrl,
      REDIS_KEY_PREFIX: resources.redisKeyPrefix,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      API_KEY_PEPPER: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
    },
  });
  for (const stream of [service.stdout, service.stderr]) stream?.on('data', (chunk) => output.push(String(chunk)));
  const exited = new Promise((resolve) => service.once('exit', resolve));
  t.teardown(async () => {
    if (service.exitCode === null && service.pid !== undefined) process.kill(-service.pid, 'SIGTERM');
    await exited;
  });

  const publicUrl = `http://localhost:${port}`;
  await waitFor(
    () => output.join('').includes(`PUBLIC_URL is ${publicUrl}`),
    `the API to log PUBLIC_URL ${publicUrl}`,
    { timeoutMs: 90_000 },
  );

  await t.test('PUBLIC_URL follows PORT: the reference names the port that answers', async (t) => {
    const document = (await (await fetch(`${publicUrl}/api/v1/openapi.json`)).json()) as { servers: { url: string }[] };
    t.same(document.servers, [{ url: publicUrl }]);
  });

  await t.test('from http://127.0.0.1:<PORT>: sign up, create an app, sign out', async (t) => {
    const url = `http://127.0.0.1:${port}`;
    const { page, problems } = await openDashboard(t, browser);
    const refused: string[] = [];
    page.on('response', (response) => {
      if (response.status() === 403) refused.push(`${response.request().method()} ${response.url()}`);
    });
    await signUp(page, url, uniqueEmail('port'));
    const appId = await createAppInPage(page, 'On another port');
    t.match(appId, /^[0-9a-f-]{36}$/);
    await page.goto(`${url}/account`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const me = await page.evaluate(async () => (await fetch('/api/v1/auth/me')).status);
    t.equal(me, 401, 'the session is over');
    t.same(refused, [], 'no write was refused');
    t.same(problems, []);
  });
}
