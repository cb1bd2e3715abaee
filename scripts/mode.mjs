// Which way `pnpm dev` and `pnpm start` run, decided here and nowhere else (the configuration's
// defaults never change): with none of DATABASE_URL, REDIS_URL and REDIS_CLUSTER_NODES set, on the
// embedded PostgreSQL with its data under `.data/`; otherwise on the PostgreSQL and Redis they name.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** A configuration that cannot run: `message` is one line naming what to set. */
export class ModeError extends Error {}

/**
 * `embedded`, `external` (PostgreSQL and Redis), or `postgres-only` (DATABASE_URL with
 * QUEUE_BACKEND=postgres and no Redis: the API then keeps its counters in its own process).
 * A half-configured environment is refused rather than silently mixed.
 */
export function chooseMode(env) {
  const set = (name) => env[name] !== undefined && env[name] !== '';
  const redis = set('REDIS_URL') || set('REDIS_CLUSTER_NODES');
  if (set('REDIS_CLUSTER_NODES') && env.QUEUE_BACKEND === 'postgres') {
    throw new ModeError(
      'REDIS_CLUSTER_NODES cannot be used with QUEUE_BACKEND=postgres: unset one of them (a cluster carries the queues itself)',
    );
  }
  if (!set('DATABASE_URL')) {
    if (!redis) return 'embedded';
    const which = set('REDIS_URL') ? 'REDIS_URL' : 'REDIS_CLUSTER_NODES';
    throw new ModeError(
      `${which} is set but DATABASE_URL is not: set DATABASE_URL too, or unset ${which} to run on the embedded PostgreSQL`,
    );
  }
  if (redis) return 'external';
  if (env.QUEUE_BACKEND === 'postgres') return 'postgres-only';
  throw new ModeError(
    'DATABASE_URL is set but REDIS_URL is not: set REDIS_URL (or REDIS_CLUSTER_NODES, or QUEUE_BACKEND=postgres to run without Redis), or unset DATABASE_URL to run on the embedded PostgreSQL',
  );
}

/** Where the embedded mode keeps its data: `.data/` of the checkout, or EMBEDDED_DATA_DIR. */
export function embeddedDataRoot(env) {
  return resolve(root, env.EMBEDDED_DATA_DIR || '.data');
}

const shown = (path) => {
  const inside = relative(root, path);
  return inside.startsWith('..') ? path : `${inside}/`;
};

/**
 * The superuser's password of the embedded PostgreSQL, made on the first start and kept beside
 * its data (readable by this user only).
 */
function embeddedPassword(dataRoot) {
  const file = join(dataRoot, 'postgres-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** While an embedded PostgreSQL runs, its URL is here for `pnpm admin` (removed when it stops). */
const runningFile = (dataRoot) => join(dataRoot, 'running.json');

/**
 * Starts the embedded PostgreSQL and returns the environment the API and the worker get:
 * DATABASE_URL pointing at it, the queues in it, the API's counters in its own process.
 * A failure to start is one line saying what to do, then exit 1.
 */
export async function startEmbedded(env, log = console.log) {
  const dataRoot = embeddedDataRoot(env);
  let server;
  try {
    const { EmbeddedPostgresError, startEmbeddedPostgres } = await import('@webpush/embedded');
    try {
      mkdirSync(dataRoot, { recursive: true });
      // Under root the server runs as another user, who must be able to enter this folder.
      if (process.getuid?.() === 0) chmodSync(dataRoot, 0o755);
      const password = embeddedPassword(dataRoot);
      const startedAt = Date.now();
      server = await startEmbeddedPostgres({ dataDir: join(dataRoot, 'postgres'), password });
      log(
        `embedded mode: PostgreSQL on 127.0.0.1:${server.port} (${server.created ? 'new' : 'kept'} data in ${shown(dataRoot)}, ` +
          `${Date.now() - startedAt} ms), queues in PostgreSQL, one API process. Set DATABASE_URL and REDIS_URL to run on your own (docs/deployment.md)`,
      );
    } catch (error) {
      if (error instanceof EmbeddedPostgresError) throw new ModeError(error.message);
      if (error?.code === 'EACCES' || error?.code === 'EPERM' || error?.code === 'EROFS') {
        throw new ModeError(
          `cannot write to ${dataRoot} (${error.code}): give this user write access to it, or set EMBEDDED_DATA_DIR to a folder it can write`,
        );
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof ModeError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  writeFileSync(runningFile(dataRoot), JSON.stringify({ url: server.url, pid: process.pid }), { mode: 0o600 });
  const stop = async () => {
    rmSync(runningFile(dataRoot), { force: true });
    await server.stop();
  };
  return {
    env: { ...env, DATABASE_URL: server.url, QUEUE_BACKEND: 'postgres', COORDINATION: 'process' },
    server,
    stop,
  };
}

/**
 * The environment of `pnpm admin` in the embedded mode: the running embedded PostgreSQL's URL, and
 * principal changes told through it. Null when none runs.
 */
export function runningEmbedded(env) {
  const file = runningFile(embeddedDataRoot(env));
  if (!existsSync(file)) return null;
  const { url } = JSON.parse(readFileSync(file, 'utf8'));
  return { ...env, DATABASE_URL: url, QUEUE_BACKEND: 'postgres', COORDINATION: 'process' };
}

/** The mode's line for the other two ways. */
export function describeMode(mode, env) {
  if (mode === 'postgres-only') {
    return 'PostgreSQL mode: DATABASE_URL, queues in PostgreSQL, the API counters in its own process (one API process)';
  }
  return `PostgreSQL and Redis mode: DATABASE_URL and ${env.REDIS_CLUSTER_NODES ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL'}`;
}
