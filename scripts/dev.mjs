#!/usr/bin/env node
// `pnpm dev`: dev secrets generated into .env on first run, the embedded PostgreSQL started when no
// database is configured (scripts/mode.mjs), database created and migrated while the API and the
// worker load in watch mode from source (no build needed; they run once it is migrated), the
// dashboard through Vite inside the API (hot reload, same origin), and the web SDK rebuilt on change
// so /sdk/* works at once.
import { mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevSecrets, launcherEnv } from './env-file.mjs';
import { chooseMode, describeMode, ModeError, startEmbedded } from './mode.mjs';
import { runTogether } from './processes.mjs';

const envPath = new URL('../.env', import.meta.url).pathname;
if (ensureDevSecrets(envPath)) console.log('generated ENCRYPTION_KEY and API_KEY_PEPPER into .env');
const launched = launcherEnv(envPath);
const { apiPort } = launched;
let { env } = launched;
let mode;
try {
  mode = chooseMode(env);
} catch (error) {
  if (!(error instanceof ModeError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const tsx = ['--conditions=webpush-source', '--import', 'tsx'];

/** Whether a process runs under `pid` (EPERM: it does, as another user). */
function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** A launcher killed outright (SIGKILL runs no exit handler) leaves its go directory behind. */
function removeGoDirectoriesOfDeadLaunchers() {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(/^webpush-dev-(\d+)-/.exec(name)?.[1]);
    if (!pid || isRunning(pid)) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
    } catch {
      // Another user's: theirs to remove.
    }
  }
}

if (mode === 'postgres-only') env = { COORDINATION: 'process', ...env };

// The API and the worker start at once and load their modules while PostgreSQL starts and the
// database is migrated; each waits (scripts/dev-child.mjs) for the go file, written below with what
// their environment still lacks, before it reads its configuration. The worker and the SDK build
// run in the background: on a machine with fewer cores than processes, the API, which the person
// at the keyboard waits for, loads first.
removeGoDirectoriesOfDeadLaunchers();
const goDirectory = mkdtempSync(join(tmpdir(), `webpush-dev-${process.pid}-`));
const goFile = join(goDirectory, 'go.json');
process.on('exit', () => rmSync(goDirectory, { recursive: true, force: true }));
const workerPort = Number(env.WORKER_PORT ?? apiPort + 1);
const child = (entry, ...meanwhile) => [...tsx, '--watch', 'scripts/dev-child.mjs', entry, ...meanwhile];
const running = runTogether(
  [
    { name: 'api', args: child('apps/api/src/server.ts', 'apps/api/src/app.ts'), port: apiPort },
    {
      name: 'worker',
      args: child('apps/worker/src/main.ts', 'apps/worker/src/worker.ts'),
      port: workerPort,
      background: true,
    },
    { name: 'sdk', args: ['packages/web-sdk/build.mjs', '--watch'], port: 0, background: true },
  ],
  { NODE_ENV: 'development', DASHBOARD_DEV_SERVER: 'true', ...env, DEV_LAUNCHER_GO_FILE: goFile },
  // DEV_LOG=json shows the processes' own JSON lines instead.
  { readable: env.DEV_LOG !== 'json' },
);

// TypeScript from here on (the embedded PostgreSQL's package, the migrations), registered only now:
// the processes above started without waiting for it.
const { register } = await import('tsx/esm/api');
register();

let stopEmbedded = async () => {};
const spawnedWith = env;
if (mode === 'embedded') {
  const embedded = await startEmbedded(env);
  env = embedded.env;
  stopEmbedded = embedded.stop;
} else {
  console.log(describeMode(mode, env));
}

// Migrated in this process (it runs TypeScript already): a second Node process only to migrate cost
// most of a second of every start. Every mode has set DATABASE_URL by now; the API and the worker
// validate the rest of the configuration themselves (its schema is the slowest import there is here).
{
  const { ensureDatabase, runMigrations } = await import('../packages/db/src/migrate.ts');
  const databaseUrl = env.DATABASE_URL;
  let where = 'the database';
  try {
    const target = new URL(databaseUrl);
    where = `${target.host}${target.pathname}`;
    if (await ensureDatabase(databaseUrl)) console.log(`created database ${where}`);
    await runMigrations(databaseUrl);
    console.log(`migrations applied to ${where}`);
  } catch (error) {
    console.error(`migration failed on ${where}: ${error instanceof Error ? error.message : String(error)}`);
    await stopEmbedded();
    process.exit(1);
  }
}

const missing = Object.fromEntries(Object.entries(env).filter(([name, value]) => spawnedWith[name] !== value));
writeFileSync(`${goFile}.partial`, JSON.stringify(missing), { mode: 0o600 });
renameSync(`${goFile}.partial`, goFile);
const local = `http://localhost:${apiPort}`;
const publicNote = env.PUBLIC_URL === local ? '' : ` (PUBLIC_URL ${env.PUBLIC_URL})`;
console.log(`dashboard and API on ${local}${publicNote}, docs at /docs; worker health on :${workerPort}`);
await running;
await stopEmbedded();
process.exit();
