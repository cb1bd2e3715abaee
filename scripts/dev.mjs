#!/usr/bin/env node
// `pnpm dev`: dev secrets generated into .env on first run, the embedded PostgreSQL started when no
// database is configured (scripts/mode.mjs), database created and migrated, then the API and the
// worker in watch mode from source (no build needed), the dashboard through Vite inside the API (hot
// reload, same origin), and the web SDK rebuilt on change so /sdk/* works at once.
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
let stopEmbedded = async () => {};
if (mode === 'embedded') {
  const embedded = await startEmbedded(env);
  env = embedded.env;
  stopEmbedded = embedded.stop;
} else {
  if (mode === 'postgres-only') env = { COORDINATION: 'process', ...env };
  console.log(describeMode(mode, env));
}
const tsx = ['--conditions=webpush-source', '--import', 'tsx'];

// Migrated in this process (it runs under tsx already): a second Node process only to migrate cost
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

const workerPort = Number(env.WORKER_PORT ?? apiPort + 1);
const local = `http://localhost:${apiPort}`;
const publicNote = env.PUBLIC_URL === local ? '' : ` (PUBLIC_URL ${env.PUBLIC_URL})`;
console.log(`dashboard and API on ${local}${publicNote}, docs at /docs; worker health on :${workerPort}`);
await runTogether(
  [
    { name: 'api', args: [...tsx, '--watch', 'apps/api/src/server.ts'], port: apiPort },
    { name: 'worker', args: [...tsx, '--watch', 'apps/worker/src/main.ts'], port: workerPort },
    { name: 'sdk', args: ['packages/web-sdk/build.mjs', '--watch'], port: 0 },
  ],
  { NODE_ENV: 'development', DASHBOARD_DEV_SERVER: 'true', ...env },
  // DEV_LOG=json shows the processes' own JSON lines instead.
  { readable: env.DEV_LOG !== 'json' },
);
await stopEmbedded();
process.exit();
