import { existsSync, readFileSync } from 'node:fs';
import { EnvSchema } from '@webpush/config';

/**
 * Shared checks of the deployment files (Dockerfile, docker-compose.yml, deploy/kubernetes/): no
 * container engine or cluster runs where the tests do, so the files are read and held against the
 * config schema, the build and what docs/ promises.
 */
export const repoRoot = new URL('../../', import.meta.url);
export const readRepoFile = (path: string) => readFileSync(new URL(path, repoRoot), 'utf8');

/** Variables the image's entrypoint (deploy/docker/entrypoint.sh) reads itself, before the config. */
export function entrypointVariables(): Set<string> {
  const script = readRepoFile('deploy/docker/entrypoint.sh');
  return new Set([...script.matchAll(/\$\{(WEBPUSH_[A-Z_]+)/g)].map((match) => match[1] ?? ''));
}

/** Every name the config schema knows (packages/config/src/env-schema.ts). */
export const schemaVariables = () => new Set(Object.keys(EnvSchema.properties));

/** Variables read by Node.js itself or by libraries, not by the config module. */
export const RUNTIME_VARIABLES = new Set(['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS']);

/** Names in `env` that nothing reads: neither the config schema, nor the entrypoint, nor Node. */
export function unknownVariables(names: Iterable<string>): string[] {
  const known = new Set([...schemaVariables(), ...entrypointVariables(), ...RUNTIME_VARIABLES]);
  return [...names].filter((name) => !known.has(name));
}

/**
 * The entry file of a `node …` command and whether `pnpm build` produces it: `<pkg>/dist/x.js`
 * comes from `<pkg>/src/x.ts` (each package's tsconfig: rootDir src, outDir dist), and after the
 * build (which `pnpm test` runs first) the file is there.
 */
export function entryFile(command: readonly string[]): string {
  if (command[0] !== 'node') throw new Error(`not a node command: ${command.join(' ')}`);
  const file = command.slice(1).find((part) => !part.startsWith('-'));
  if (!file) throw new Error(`no entry file in ${command.join(' ')}`);
  return file;
}

export function builtByPnpmBuild(file: string): { source: boolean; built: boolean } {
  const match = /^((?:apps|packages)\/[^/]+)\/dist\/(.+)\.js$/.exec(file);
  if (!match) return { source: false, built: false };
  const [, pkg, rest] = match;
  const tsconfig = JSON.parse(readRepoFile(`${pkg}/tsconfig.json`)) as {
    compilerOptions?: { rootDir?: string; outDir?: string };
  };
  const mapsSrcToDist = tsconfig.compilerOptions?.rootDir === 'src' && tsconfig.compilerOptions?.outDir === 'dist';
  return {
    source: mapsSrcToDist && existsSync(new URL(`${pkg}/src/${rest}.ts`, repoRoot)),
    built: existsSync(new URL(file, repoRoot)),
  };
}

/** The path and port of a health check written as `fetch('http://127.0.0.1:<port>/<path>')`. */
export function healthCheckTarget(check: string): { port: string; path: string } | null {
  const match = /http:\/\/127\.0\.0\.1:(\d+|'\+\(process\.env\.PORT\|\|(\d+)\)\+')(\/[a-z]+)/.exec(check);
  if (!match) return null;
  return { port: match[2] ?? match[1] ?? '', path: match[3] ?? '' };
}

/** The `--max-semi-space-size` of a worker command, in MB, or null. */
export function semiSpaceMb(command: readonly string[]): number | null {
  const flag = command.find((part) => part.startsWith('--max-semi-space-size='));
  return flag ? Number(flag.split('=')[1]) : null;
}

/**
 * The route the Compose and Kubernetes readiness checks call, as docs/operations.md documents it
 * (the API's and the worker's own tests check that each process answers it).
 */
export function documentedProbePath(): string {
  const row = /^\| `(\/[a-z]+)` of each process \|.*probes of Compose and Kubernetes use it/m.exec(
    readRepoFile('docs/operations.md'),
  );
  if (!row?.[1]) throw new Error('docs/operations.md no longer names the readiness route the probes use');
  return row[1];
}

/** How long each process takes to stop and how long its pod is given, as docs/deployment.md says. */
export function documentedStopSeconds(): Record<'api' | 'worker', { drain: number; grace: number }> {
  const text = readRepoFile('docs/deployment.md').replace(/\s+/g, ' ');
  const api = /The API finishes in-flight requests within (\d+) s and gets (\d+) s/.exec(text);
  const worker = /the worker finishes its active jobs within (\d+) s and gets (\d+) s/.exec(text);
  if (!api || !worker) throw new Error('docs/deployment.md no longer says how long each process takes to stop');
  return {
    api: { drain: Number(api[1]), grace: Number(api[2]) },
    worker: { drain: Number(worker[1]), grace: Number(worker[2]) },
  };
}
