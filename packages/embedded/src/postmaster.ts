import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { runAs, type ServerUser } from './server-user.js';

/**
 * The postmaster's children stop when the postmaster dies, but the postmaster outlives its parent.
 * So it runs under a small shell whose stdin is a pipe from this process: the pipe reaches EOF when
 * we close it or when this process dies in any way (SIGKILL included), and the shell then asks the
 * postmaster for a fast shutdown and exits with it.
 *
 * A background list in a non-interactive shell reads /dev/null, hence the copy of stdin on fd 3.
 */
const WATCHDOG_SCRIPT = `exec 3<&0
"$@" </dev/null 3<&- &
postmaster=$!
(while read -r _; do :; done; kill -INT "$postmaster" 2>/dev/null) <&3 &
watchdog=$!
exec 3<&-
wait "$postmaster"
status=$?
kill "$watchdog" 2>/dev/null
exit "$status"
`;

export interface Postmaster {
  /** Settles when the postmaster has exited, with its exit status (128 + N when signal N ended it). */
  exited: Promise<number | null>;
  /** Asks for a fast shutdown: sessions are ended, and the data is written out cleanly. */
  requestShutdown(): void;
}

export function spawnPostmaster(
  postgres: string,
  args: string[],
  user: ServerUser | undefined,
  environment: NodeJS.ProcessEnv,
  onLine: (line: string) => void,
): Postmaster {
  // Its own process group, so a Ctrl-C in the terminal reaches the launcher, which stops the server
  // after its clients, instead of ending the server under them.
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(
    '/bin/sh',
    ['-c', WATCHDOG_SCRIPT, 'postgres-watchdog', postgres, ...args],
    { env: environment, stdio: ['pipe', 'pipe', 'pipe'], detached: true, ...runAs(user) },
  );
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', onLine);
  }
  // Closing the pipe after the shell has gone (the server crashed) fails with EPIPE, which is no news.
  child.stdin.on('error', () => {});
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return { exited, requestShutdown: () => child.stdin.end() };
}
