/**
 * postgres.js codes of a connection that broke or could not be made. Not `CONNECTION_ENDED`: that
 * one means our own pool was closed (`sql.end()`), and no retry gets past it.
 */
const CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);
/** Node's codes of a socket that could not reach the server or lost it. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs of a server going away or not back yet: admin_shutdown (a restart's fast shutdown),
 * crash_shutdown, cannot_connect_now (starting up or shutting down); class 08 is connection exceptions.
 */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03']);

/**
 * Whether `error` says PostgreSQL could not be reached (down, restarting, the connection cut), as
 * opposed to a statement it refused (a constraint, a bug). A statement that failed this way may
 * still have committed, if only its answer was lost: retry only what is idempotent.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const candidate = queue.shift();
    if (typeof candidate !== 'object' || candidate === null || seen.has(candidate)) continue;
    seen.add(candidate);
    const code = (candidate as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (CONNECTION_CODES.has(code) || SOCKET_CODES.has(code) || SERVER_CODES.has(code)) return true;
      if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    // drizzle wraps a driver error in `cause`; a connect to several addresses fails with an AggregateError.
    queue.push((candidate as { cause?: unknown }).cause);
    const errors = (candidate as { errors?: unknown }).errors;
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return false;
}
