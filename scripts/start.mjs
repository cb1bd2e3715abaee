#!/usr/bin/env node
// `pnpm start`: the embedded PostgreSQL started when no database is configured (scripts/mode.mjs),
// migrations applied, then the API and the worker from the build (run `pnpm build` first). Reads
// .env when present; the environment wins over it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { launcherEnv } from './env-file.mjs';
import { chooseMode, describeMode, ModeError, startEmbedded } from './mode.mjs';
import { runTogether } from './processes.mjs';

for (const file of ['apps/api/dist/server.js', 'apps/worker/dist/main.js', 'packages/db/dist/migrate-cli.js']) {
  if (!existsSync(new URL(`../${file}`, import.meta.url))) {
    console.error(`${file} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
}
const launched = launcherEnv(new URL('../.env', import.meta.url).pathname);
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
try {
  execFileSync(process.execPath, ['packages/db/dist/migrate-cli.js'], { env, stdio: 'inherit' });
} catch {
  await stopEmbedded();
  process.exit(1);
}
const workerPort = Number(env.WORKER_PORT ?? apiPort + 1);
await runTogether(
  [
    { name: 'api', args: ['apps/api/dist/server.js'], port: apiPort },
    // --max-semi-space-size=8: docs/configuration.md (the worker's young generation, 16 MB less RSS).
    { name: 'worker', args: ['--max-semi-space-size=8', 'apps/worker/dist/main.js'], port: workerPort },
  ],
  { NODE_ENV: 'production', ...env },
);
await stopEmbedded();
process.exit();
