#!/usr/bin/env node
// `pnpm start`: migrations applied, then the API and the worker from the build (run `pnpm build`
// first). Reads .env when present; the environment wins over it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { launcherEnv } from './env-file.mjs';
import { runTogether } from './processes.mjs';

for (const file of ['apps/api/dist/server.js', 'apps/worker/dist/main.js', 'packages/db/dist/migrate-cli.js']) {
  if (!existsSync(new URL(`../${file}`, import.meta.url))) {
    console.error(`${file} is missing: run \`pnpm build\` first`);
    process.exit(1);
  }
}
const { env, apiPort } = launcherEnv(new URL('../.env', import.meta.url).pathname);
execFileSync(process.execPath, ['packages/db/dist/migrate-cli.js'], { env, stdio: 'inherit' });
const workerPort = Number(env.WORKER_PORT ?? apiPort + 1);
runTogether(
  [
    { name: 'api', args: ['apps/api/dist/server.js'], port: apiPort },
    // --max-semi-space-size=8: docs/configuration.md (the worker's young generation, 16 MB less RSS).
    { name: 'worker', args: ['--max-semi-space-size=8', 'apps/worker/dist/main.js'], port: workerPort },
  ],
  { NODE_ENV: 'production', ...env },
);
