import { createServer, type IncomingMessage, type Server } from 'node:http';
import { errorBody } from '@webpush/errors';
import { basicAuthMatches } from '@webpush/secrets';

/** The dependencies `/readyz` names when they do not answer; never the underlying error's text. */
export type Dependency = 'postgres' | 'redis';

export class DependenciesDownError extends Error {
  override readonly name = 'DependenciesDownError';
  constructor(readonly down: readonly Dependency[]) {
    super(`not ready: ${down.join(', ')} down`);
  }
}

export interface HealthChecks {
  /** Resolves when PostgreSQL and Redis answer; rejects with a DependenciesDownError naming what is down. */
  ready(): Promise<void>;
  /** Prometheus exposition of the process's metrics. */
  metrics?(): Promise<{ contentType: string; body: string }>;
}

export interface HealthServerOptions {
  /** Basic-auth credentials for `/metrics`; without them `/metrics` is 404 (closed by default). */
  ops?: { readonly username: string; readonly password: string } | null;
  /** Failed `/metrics` logins allowed per client IP and window before 429. */
  maxFailedLogins?: number;
  windowSeconds?: number;
}

// The contract's error bodies; none of these codes carries upgrade_url, so no PUBLIC_URL is needed.
const NOT_FOUND = errorBody('NOT_FOUND', '');
const UNAUTHORIZED = errorBody('UNAUTHORIZED', '');
const RATE_LIMITED = errorBody('RATE_LIMITED', '');

/**
 * Failed logins per client IP, in this process's memory. The worker's health server is plain
 * node:http without Redis-backed middleware, listens on 127.0.0.1 unless told otherwise, and each
 * worker process guards only its own `/metrics`: a shared counter would buy nothing here, and
 * keeping it in memory means a Redis outage cannot lock operators out of the metrics that show it.
 */
class FailedLoginCounter {
  readonly #failures = new Map<string, { count: number; resetAt: number }>();
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}
  blocked(ip: string, now = Date.now()): boolean {
    const entry = this.#failures.get(ip);
    if (entry && entry.resetAt <= now) this.#failures.delete(ip);
    return (this.#failures.get(ip)?.count ?? 0) >= this.max;
  }
  fail(ip: string, now = Date.now()): void {
    const entry = this.#failures.get(ip);
    if (entry && entry.resetAt > now) entry.count++;
    else this.#failures.set(ip, { count: 1, resetAt: now + this.windowMs });
    // Bounded memory under a spray of addresses: expired entries go first, then the oldest.
    if (this.#failures.size > 10_000) {
      for (const [key, value] of this.#failures) if (value.resetAt <= now) this.#failures.delete(key);
      const oldest = this.#failures.keys().next();
      if (this.#failures.size > 10_000 && !oldest.done) this.#failures.delete(oldest.value);
    }
  }
}

/**
 * The worker's only HTTP surface (docs/operations.md): `/healthz` (process up) and `/readyz`
 * (PostgreSQL and Redis answer; when not, only which of them is down) and `/metrics` (Prometheus,
 * behind the ops credentials, 404 without them).
 */
export function startHealthServer(
  port: number,
  host: string,
  checks: HealthChecks,
  options: HealthServerOptions = {},
): Promise<Server> {
  const { ops = null, maxFailedLogins = 10, windowSeconds = 60 } = options;
  const failedLogins = new FailedLoginCounter(maxFailedLogins, windowSeconds * 1000);
  const clientIp = (request: IncomingMessage) => request.socket.remoteAddress ?? 'unknown';

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return send(404, NOT_FOUND);
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      checks.ready().then(
        () => send(200, { status: 'ok' }),
        (error: unknown) =>
          send(503, { status: 'unavailable', down: error instanceof DependenciesDownError ? error.down : [] }),
      );
      return;
    }
    if (path === '/metrics' && checks.metrics && ops) {
      const ip = clientIp(request);
      // The right credentials always pass: the lockout slows guessing, it never locks the operator out.
      if (!basicAuthMatches(request.headers.authorization, ops)) {
        if (failedLogins.blocked(ip)) return send(429, RATE_LIMITED, { 'retry-after': String(windowSeconds) });
        failedLogins.fail(ip);
        return send(401, UNAUTHORIZED, { 'www-authenticate': 'Basic realm="webpush ops", charset="UTF-8"' });
      }
      checks.metrics().then(
        ({ contentType, body }) => {
          response.writeHead(200, { 'content-type': contentType });
          response.end(body);
        },
        () => send(500, errorBody('INTERNAL_ERROR', '')),
      );
      return;
    }
    return send(404, NOT_FOUND);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
