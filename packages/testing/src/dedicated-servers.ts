import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { unusedPort } from './ports.js';
import { pause, waitFor } from './wait-for.js';

/**
 * Servers of its own for a test that stops and starts them: a `redis-server` and a PostgreSQL
 * cluster (initdb) on free loopback ports, nothing kept once closed. The shared services of the
 * suite are never restarted.
 */

export interface DedicatedRedis {
  readonly url: string;
  /** SIGKILL, then a new empty server on the same port (nothing is kept on disk): Redis lost and back. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

async function stop(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

export async function startDedicatedRedis(): Promise<DedicatedRedis> {
  const port = await unusedPort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitFor(
      async () => {
        const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } catch {
          return false;
        } finally {
          probe.disconnect();
        }
      },
      `redis-server on port ${port}`,
      { intervalMs: 100 },
    );
  };
  await start();
  return {
    url,
    async restart(downMs = 1_000) {
      await stop(child, 'SIGKILL');
      await pause(downMs); // the outage itself
      await start();
    },
    close: () => stop(child, 'SIGKILL'),
  };
}

export interface DedicatedPostgres {
  /** The URL of `database` on this server (default `postgres`). */
  url(database?: string): string;
  /** `pg_ctl restart -m fast`: every connection is cut, the server is back after `downMs`. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** initdb, pg_ctl: on PATH, else the newest /usr/lib/postgresql/<n>/bin (Debian's layout). */
function postgresBin(name: string): string {
  try {
    return execFileSync('which', [name], { encoding: 'utf8' }).trim();
  } catch {
    const root = '/usr/lib/postgresql';
    const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
    for (const version of versions) {
      const path = join(root, version, 'bin', name);
      if (existsSync(path)) return path;
    }
    throw new Error(`${name} not found: install PostgreSQL's server binaries`);
  }
}

/** initdb and the server refuse to run as root: run them as `postgres` then. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  const quoted = [command, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  return ['su', ['postgres', '-s', '/bin/sh', '-c', quoted]];
}

export async function startDedicatedPostgres(): Promise<DedicatedPostgres> {
  const port = await unusedPort();
  const dir = mkdtempSync(join(tmpdir(), 'dedicated-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const initdb = postgresBin('initdb');
  const pgCtl = postgresBin('pg_ctl');
  execFileSync(...asServerUser(initdb, ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']), {
    stdio: 'ignore',
  });
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c autovacuum=off`;
  const ctl = (...args: string[]) =>
    execFileSync(...asServerUser(pgCtl, ['-D', data, '-l', join(dir, 'log'), ...args]), { stdio: 'ignore' });
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const ready = () =>
    waitFor(
      async () => {
        const sql = postgres(url(), { max: 1, connect_timeout: 2, onnotice: () => {} });
        try {
          await sql`select 1`;
          return true;
        } catch {
          return false;
        } finally {
          await sql.end({ timeout: 1 });
        }
      },
      `PostgreSQL on port ${port}`,
      { intervalMs: 100 },
    );
  ctl('-o', options, '-w', 'start');
  await ready();
  return {
    url,
    async restart(downMs = 1_000) {
      ctl('-m', 'fast', '-w', 'stop');
      await pause(downMs); // the outage itself
      ctl('-o', options, '-w', 'start');
      await ready();
    },
    async close() {
      try {
        ctl('-m', 'immediate', '-w', 'stop');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
