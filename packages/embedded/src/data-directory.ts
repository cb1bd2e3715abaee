import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chown, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { POSTGRES_MAJOR, type PostgresBinaries } from './binaries.js';
import { DataDirectoryFromOtherMajorError, DataDirectoryNotWritableError, EmbeddedPostgresError } from './errors.js';
import { runAs, type ServerUser } from './server-user.js';

/**
 * The superuser initdb creates. With a password it signs in with it (scram-sha-256, loopback only);
 * without one, trust authentication lets it in (tests of this package).
 */
export const SUPERUSER = 'postgres';

/**
 * Makes `dataDir` a PostgreSQL data directory of our major owned by the server's user: initdb on the
 * first run, a check of PG_VERSION on every later one.
 */
export async function prepareDataDirectory(
  dataDir: string,
  binaries: PostgresBinaries,
  user: ServerUser | undefined,
  environment: NodeJS.ProcessEnv,
  password: string | undefined,
): Promise<'created' | 'existing'> {
  await createFolder(dirname(dataDir));
  const version = await readFile(join(dataDir, 'PG_VERSION'), 'utf8').catch(() => undefined);
  if (version === undefined) {
    await initialise(dataDir, binaries, user, environment, password);
    return 'created';
  }
  if (version.trim() !== POSTGRES_MAJOR) {
    throw new DataDirectoryFromOtherMajorError(
      `${dataDir} holds PostgreSQL ${version.trim()} data and this launcher runs PostgreSQL ${POSTGRES_MAJOR}: move the folder away to start afresh, or dump it with pg_dump ${version.trim()} and restore it`,
    );
  }
  if (user) await chownTree(dataDir, user);
  else
    await access(dataDir, constants.R_OK | constants.W_OK | constants.X_OK).catch((error) => {
      throw notWritable(dataDir, error);
    });
  return 'existing';
}

async function createFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    throw notWritable(folder, error);
  }
}

/**
 * initdb writes into a fresh sibling folder that is renamed into place once complete, so a launcher
 * killed halfway leaves no half-made data directory that the next start would trip over.
 */
async function initialise(
  dataDir: string,
  binaries: PostgresBinaries,
  user: ServerUser | undefined,
  environment: NodeJS.ProcessEnv,
  password: string | undefined,
): Promise<void> {
  const leftover = await readdir(dataDir).catch(() => []);
  if (leftover.length > 0) {
    throw new EmbeddedPostgresError(
      `${dataDir} is not empty but holds no PostgreSQL data (no PG_VERSION): move it away, or choose another data directory`,
    );
  }
  let scratch: string;
  try {
    scratch = await mkdtemp(join(dirname(dataDir), `${basename(dataDir)}.initdb-`));
    if (user) await chown(scratch, user.uid, user.gid);
  } catch (error) {
    throw notWritable(dirname(dataDir), error);
  }
  // initdb reads the password from a file the server's user can read; it is gone once initdb is done.
  const passwordFile = password === undefined ? undefined : `${scratch}.password`;
  try {
    if (passwordFile !== undefined) {
      await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
      if (user) await chown(passwordFile, user.uid, user.gid);
    }
    const output = await run(
      binaries.initdb,
      // --no-sync: a development database is not worth the seconds of fsync that initdb spends.
      [
        '-D',
        scratch,
        '-U',
        SUPERUSER,
        ...(passwordFile === undefined ? ['--auth=trust'] : ['--auth=scram-sha-256', `--pwfile=${passwordFile}`]),
        '--encoding=UTF8',
        '--no-locale',
        '--no-sync',
        '--no-instructions',
      ],
      user,
      environment,
    );
    if (output.code !== 0) {
      throw new EmbeddedPostgresError(`initdb failed in ${scratch}: ${lastLine(output.text)}`);
    }
    await rename(scratch, dataDir);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  } finally {
    if (passwordFile !== undefined) await rm(passwordFile, { force: true });
  }
}

/** Gives the server's user a data directory that root (or another run) left with another owner. */
async function chownTree(path: string, user: ServerUser): Promise<void> {
  const info = await lstat(path);
  // A data directory is owned as a whole: when its top is right, the rest is too.
  if (info.uid === user.uid && info.gid === user.gid) return;
  const walk = async (entry: string): Promise<void> => {
    await chown(entry, user.uid, user.gid);
    if ((await lstat(entry)).isDirectory()) {
      for (const child of await readdir(entry)) await walk(join(entry, child));
    }
  };
  try {
    await walk(path);
  } catch (error) {
    throw notWritable(path, error);
  }
}

export function notWritable(folder: string, error: unknown): EmbeddedPostgresError {
  const code = (error as NodeJS.ErrnoException).code ?? String(error);
  return new DataDirectoryNotWritableError(
    `cannot write to ${folder} (${code}): give this user write access to it (e.g. \`chown -R $(id -un) ${folder}\`), or choose another data directory`,
  );
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

function run(
  command: string,
  args: string[],
  user: ServerUser | undefined,
  environment: NodeJS.ProcessEnv,
): Promise<{ code: number | null; text: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: environment, stdio: ['ignore', 'pipe', 'pipe'], ...runAs(user) });
    let text = '';
    const collect = (chunk: Buffer) => {
      text += chunk.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, text }));
  });
}
