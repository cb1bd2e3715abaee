import type { Server } from 'node:http';
import { loadConfigOffThread } from '@webpush/config/startup';
import { startTracing } from '@webpush/tracing';
import { pino } from 'pino';
import { startHealthServer } from './ops/health-server.js';
import { type RunningWorker, startWorker } from './worker.js';

/**
 * The delivery worker process: the BullMQ workers and the reconciler (`worker.ts`), plus the health
 * server with `/healthz`, `/readyz` and `/metrics` (on WORKER_HOST, 127.0.0.1 by default). SIGTERM lets in-flight jobs finish, then exits.
 */
// Validated on a short-lived thread: TypeBox, which only this needs, would keep 5.7 MB of heap here.
const config = await loadConfigOffThread();
const log = pino({ level: config.logLevel, base: { service: 'worker' } });
for (const problem of config.problems) log.error(`CONFIGURATION PROBLEM: ${problem}`);
for (const note of config.notes) log.info(`note: ${note}`);
// Before the worker is built, so its queues and BullMQ workers carry the trace context (docs/tracing.md).
const tracing = await startTracing({ serviceName: 'webpush-worker', enabled: config.tracing.enabled });

let worker: RunningWorker;
let server: Server;
try {
  worker = await startWorker(config, { log });
  server = await startHealthServer(
    config.port,
    config.workerHost,
    {
      ready: () => worker.ready(),
      metrics: async () => ({ contentType: worker.metrics.contentType, body: await worker.metrics.metrics() }),
    },
    { ops: config.ops, maxFailedLogins: config.rateLimit.loginMax, windowSeconds: config.rateLimit.windowSeconds },
  );
} catch (error) {
  log.fatal({ err: error }, `could not start the worker on ${config.workerHost}:${config.port}`);
  process.exit(1);
}
log.info({ host: config.workerHost, port: config.port, metrics: config.ops !== null }, 'worker ready');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'worker shutting down: finishing active jobs');
  const timer = setTimeout(() => {
    log.error('shutdown took longer than 30 s, exiting');
    process.exit(1);
  }, 30_000);
  timer.unref();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await worker.close();
  await tracing.shutdown();
  log.info('worker stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
