import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on right now: for a child process that must be told its port up
 * front, or for a send that should fail at the network rather than at the allowlist.
 */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}
