import { createServer, type Server } from 'node:http';

export interface HealthChecks {
  /** Resolves when PostgreSQL and Redis answer; rejects with what is down. */
  ready(): Promise<void>;
  /** Prometheus exposition of the process's metrics. */
  metrics?(): Promise<{ contentType: string; body: string }>;
}

/**
 * The worker's only HTTP surface (CONTRACT "Operations"): `/healthz` (process up) and `/readyz`
 * (PostgreSQL and Redis answer) and `/metrics` (Prometheus).
 */
export function startHealthServer(port: number, host: string, checks: HealthChecks): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return send(404, { error: 'リソースが見つかりません', code: 'NOT_FOUND' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      checks.ready().then(
        () => send(200, { status: 'ok' }),
        (error: unknown) =>
          send(503, { status: 'unavailable', reason: error instanceof Error ? error.message : 'unknown' }),
      );
      return;
    }
    if (path === '/metrics' && checks.metrics) {
      checks.metrics().then(
        ({ contentType, body }) => {
          response.writeHead(200, { 'content-type': contentType });
          response.end(body);
        },
        () => send(500, { error: '内部エラーが発生しました', code: 'INTERNAL_ERROR' }),
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
