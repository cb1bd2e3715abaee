import { loadConfig } from '@webpush/config';
import { startTracing } from '@webpush/tracing';
import { buildApp } from './app.js';
import { CoordinationTakenError } from './coordination/coordination.js';

const config = loadConfig();
// Before the app is built, so its request hooks and queues see it (docs/tracing.md).
const tracing = await startTracing({ serviceName: 'webpush-api', enabled: config.tracing.enabled });
const app = await buildApp(config).catch((error: unknown) => {
  // A second API on an in-process coordination: one line that says what to do, no stack trace.
  if (!(error instanceof CoordinationTakenError)) throw error;
  console.error(error.message);
  process.exit(1);
});

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down: finishing in-flight requests');
  const timer = setTimeout(() => {
    app.log.error('shutdown took longer than 10 s, exiting');
    process.exit(1);
  }, 10_000);
  timer.unref();
  await app.close();
  await tracing.shutdown();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.listen({ port: config.port, host: config.host });
  if (app.opsServer && config.opsListener) await app.opsServer.listen(config.opsListener);
  app.log.info(
    { publicUrl: config.publicUrl },
    `PUBLIC_URL is ${config.publicUrl}: the dashboard's origin, and the base of e-mail links, click links and /docs`,
  );
} catch (error) {
  app.log.fatal({ err: error }, 'could not start the API');
  process.exit(1);
}
