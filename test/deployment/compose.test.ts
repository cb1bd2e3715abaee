import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import {
  builtByPnpmBuild,
  documentedProbePath,
  entryFile,
  healthCheckTarget,
  readRepoFile,
  repoRoot,
  semiSpaceMb,
  unknownVariables,
} from './deployment-files.js';

// Dockerfile and docker-compose.yml, read (no Docker engine runs here): a supported Node, a runtime
// stage without devDependencies as a non-root user, one-command start without hand-set secrets,
// and every variable, entry file and health check matching the config schema, the build and docs/.

interface Instruction {
  keyword: string;
  args: string;
}

function dockerfile(): Instruction[][] {
  const lines = readRepoFile('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Instruction[][] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages;
}

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[]; disable?: boolean };
  stop_grace_period?: string;
  volumes?: string[];
}

const compose = parse(readRepoFile('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const ourServices = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);

t.test('Dockerfile: Node 24 LTS, a build stage and a production-only runtime stage as a non-root user', async (t) => {
  const stages = dockerfile();
  t.equal(stages.length, 2, 'build and runtime');
  for (const stage of stages) t.match(stage[0]?.args, /^node:24-bookworm-slim\b/, 'every stage on node:24');
  const [build = [], runtime = []] = stages;
  const buildRuns = build.filter((i) => i.keyword === 'RUN').map((i) => i.args);
  t.ok(
    buildRuns.some((run) => run.includes('pnpm install --frozen-lockfile') && run.includes('pnpm build')),
    'builds with the lockfile',
  );
  for (const pkg of ['@webpush/api', '@webpush/worker', '@webpush/db'])
    t.ok(
      buildRuns.some((run) => new RegExp(`--filter=${pkg} deploy --prod`).test(run)),
      `${pkg} deployed with production dependencies only`,
    );
  const copies = runtime.filter((i) => i.keyword === 'COPY').map((i) => i.args);
  const fromBuild = copies.filter((copy) => copy.includes('--from=build'));
  t.strictSame(
    fromBuild.map((copy) => copy.split(/\s+/).at(-2)),
    ['/out'],
    'the runtime takes only the deploy output, not the build tree',
  );
  const user = runtime.findLast((i) => i.keyword === 'USER')?.args;
  t.ok(user && user !== 'root' && user !== '0', `runs as ${user}`);
  t.ok(
    runtime.some((i) => i.keyword === 'ENV' && /NODE_ENV=production/.test(i.args)),
    'NODE_ENV=production',
  );
  const healthcheck = runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args ?? '';
  t.match(healthCheckTarget(healthcheck), { port: '3000', path: '/healthz' }, 'HEALTHCHECK on /healthz of PORT');
  const cmd = JSON.parse(runtime.find((i) => i.keyword === 'CMD')?.args ?? '[]') as string[];
  t.match(builtByPnpmBuild(entryFile(cmd)), { source: true, built: true }, `CMD ${cmd.join(' ')}`);
  const ignored = readRepoFile('.dockerignore').split('\n');
  for (const path of ['**/node_modules', '**/dist', '.env', 'deploy/kubernetes/secrets.env'])
    t.ok(ignored.includes(path), `.dockerignore keeps ${path} out of the build context`);
  const entrypoint = copies.find((copy) => copy.includes('entrypoint.sh'));
  t.ok(entrypoint, 'the entrypoint that loads the generated secrets is in the image');
});

/** `${NAME:-}` in compose: the shell's value when set, else empty (the generated secret then). */
const unsetIsEmpty = (name: string) => `\${${name}:-}`;

t.test('compose starts with no variables set: no required variable and a first-run step for the secrets', async (t) => {
  const text = readRepoFile('docker-compose.yml');
  t.notMatch(text, /\$\{[A-Z_]+:\?/, 'no variable is required');
  const first = compose.services.secrets;
  t.match(first?.environment, { WEBPUSH_GENERATE_SECRETS: '1', WEBPUSH_SECRETS_DIR: '/var/lib/webpush' });
  t.match(compose.services.migrate?.depends_on, {
    secrets: { condition: 'service_completed_successfully' },
    postgres: { condition: 'service_healthy' },
  });
  for (const name of ['api', 'worker'])
    t.match(compose.services[name]?.depends_on, {
      migrate: { condition: 'service_completed_successfully' },
      redis: { condition: 'service_healthy' },
    });
  t.ok('secrets' in compose.volumes, 'the secrets live in a named volume');
  for (const [name, service] of ourServices) {
    t.ok(service.volumes?.includes('secrets:/var/lib/webpush'), `${name} mounts the secrets`);
    t.equal(service.environment?.WEBPUSH_SECRETS_DIR, '/var/lib/webpush', `${name} reads them`);
    t.equal(
      service.environment?.ENCRYPTION_KEY,
      unsetIsEmpty('ENCRYPTION_KEY'),
      `${name}: a set ENCRYPTION_KEY still wins`,
    );
    t.equal(
      service.environment?.API_KEY_PEPPER,
      unsetIsEmpty('API_KEY_PEPPER'),
      `${name}: a set API_KEY_PEPPER still wins`,
    );
  }
});

t.test('compose: every variable is one the config schema (or the entrypoint) knows', async (t) => {
  t.ok(ourServices.length >= 4, 'secrets, migrate, api, worker');
  for (const [name, service] of ourServices)
    t.strictSame(unknownVariables(Object.keys(service.environment ?? {})), [], `${name}: no unknown variable`);
  const dockerEnv = dockerfile()
    .flat()
    .filter((i) => i.keyword === 'ENV')
    .flatMap((i) => [...i.args.matchAll(/([A-Z_]+)=/g)].map((match) => match[1] ?? ''));
  t.strictSame(unknownVariables(dockerEnv), [], 'Dockerfile ENV');
});

t.test('compose: every command runs a file `pnpm build` produces; the worker gets --max-semi-space-size', async (t) => {
  for (const [name, service] of ourServices) {
    if (name === 'secrets') {
      t.strictSame(service.command, ['true'], 'the first-run step only runs the entrypoint');
      continue;
    }
    const file = entryFile(service.command ?? []);
    t.match(builtByPnpmBuild(file), { source: true, built: true }, `${name}: ${file}`);
  }
  t.equal(semiSpaceMb(compose.services.worker?.command ?? []), 8, 'worker: --max-semi-space-size=8');
  const rootScripts = JSON.parse(readRepoFile('package.json')).scripts as Record<string, string>;
  t.match(rootScripts['start:worker'], /--max-semi-space-size=8/, 'the same flag as `pnpm start:worker`');
});

t.test('compose: health checks call the documented readiness route, on the port each process listens on', async (t) => {
  const readiness = documentedProbePath();
  const api = compose.services.api;
  const apiTarget = healthCheckTarget(api?.healthcheck?.test?.join(' ') ?? '');
  t.equal(apiTarget?.port, api?.environment?.PORT, 'the API health check uses its PORT');
  t.ok(api?.ports?.includes(`${apiTarget?.port}:${apiTarget?.port}`), 'and that port is published');
  t.equal(apiTarget?.path, readiness, `the API health check calls ${readiness}`);

  const worker = compose.services.worker;
  const workerTarget = healthCheckTarget(worker?.healthcheck?.test?.join(' ') ?? '');
  t.equal(workerTarget?.port, worker?.environment?.PORT, 'the worker health check uses its PORT');
  t.equal(workerTarget?.path, readiness, `the worker health check calls ${readiness}`);
  t.ok(worker?.stop_grace_period, 'the worker has time to drain on stop');
});

t.test('the entrypoint generates the secrets once, reuses them, and lets variables win', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'webpush-secrets-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const script = new URL('deploy/docker/entrypoint.sh', repoRoot).pathname;
  const run = (env: Record<string, string>) =>
    execFileSync('sh', [script, 'sh', '-c', 'printf "%s %s" "$ENCRYPTION_KEY" "$API_KEY_PEPPER"'], {
      env: { PATH: process.env.PATH ?? '', WEBPUSH_SECRETS_DIR: dir, ...env },
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();

  t.equal(run({}), ' ', 'a reader alone generates nothing');
  const [key, pepper] = run({ WEBPUSH_GENERATE_SECRETS: '1' }).split(' ');
  t.equal(Buffer.from(key ?? '', 'base64').length, 32, 'ENCRYPTION_KEY: 32 bytes, base64');
  t.ok((pepper ?? '').length >= 40, 'API_KEY_PEPPER generated');
  t.equal(run({ WEBPUSH_GENERATE_SECRETS: '1' }), `${key} ${pepper}`, 'the second run reuses them');
  t.equal(run({}), `${key} ${pepper}`, 'every process reads the same');
  t.equal(run({ ENCRYPTION_KEY: 'mine' }), `mine ${pepper}`, 'a set variable wins');
  t.equal(readFileSync(join(dir, 'encryption-key'), 'utf8').trim(), key);
});
