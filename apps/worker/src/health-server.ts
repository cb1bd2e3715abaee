import { createServer, type Server } from 'node:http';

export interface HealthChecks {
  /** Resolves when PostgreSQL and Redis answer; rejects with what is down. */
  ready(): Promise<void>;
}

/**
 * The worker's only HTTP surface (CONTRACT "Operations"): `/healthz` (process up) and `/readyz`
 * (PostgreSQL and Redis answer). `/metrics` joins it with the delivery pipeline.
 */
export function startHealthServer(port: number, host: string, checks: HealthChecks): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET') return send(404, { error: 'リソースが見つかりません', code: 'NOT_FOUND' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      checks.ready().then(
        () => send(200, { status: 'ok' }),
        (error: unknown) =>
          send(503, { status: 'unavailable', reason: error instanceof Error ? error.message : 'unknown' }),
      );
      return;
    }
    return send(404, { error: 'リソースが見つかりません', code: 'NOT_FOUND' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
