import { spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { EmbeddedPostgresError } from './errors.js';

export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * PostgreSQL refuses to run as root, so under uid 0 the server runs as an existing unprivileged user
 * (never one we create: containers and CI machines may not allow `useradd`). Any other user runs it
 * as itself: `undefined`.
 */
export function unprivilegedServerUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const uid = idOf(name, '-u');
    const gid = idOf(name, '-g');
    if (uid !== undefined && gid !== undefined && uid !== 0) return { name, uid, gid };
  }
  throw new EmbeddedPostgresError(
    'PostgreSQL does not run as root and neither a `postgres` nor a `nobody` user exists: run as an ordinary user',
  );
}

// `id` asks the system's user database (NSS), which /etc/passwd alone may not be.
function idOf(name: string, flag: '-u' | '-g'): number | undefined {
  const answer = spawnSync('id', [flag, name], { encoding: 'utf8' });
  return answer.status === 0 ? Number(answer.stdout.trim()) : undefined;
}

/**
 * Under root the server's user must be able to enter every folder above its binaries and its data;
 * a checkout under /root (mode 0700) is the usual reason it cannot.
 */
export async function assertReachable(user: ServerUser, path: string): Promise<void> {
  for (let folder = dirname(resolve(path)); folder !== dirname(folder); folder = dirname(folder)) {
    const found = await stat(folder).catch(() => undefined);
    if (!found) continue; // made later by the launcher, with the default mode 0755
    const { mode, uid, gid } = found;
    const searchable = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
    if (!searchable) {
      throw new EmbeddedPostgresError(
        `PostgreSQL runs as the user ${user.name} here (never as root), and ${user.name} cannot enter ${folder}: run as an ordinary user, or \`chmod o+x ${folder}\``,
      );
    }
  }
}

/** The spawn options that run a child as `user`, or as ourselves when there is none. */
export function runAs(user: ServerUser | undefined): { uid?: number; gid?: number } {
  return user ? { uid: user.uid, gid: user.gid } : {};
}
