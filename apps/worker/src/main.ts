import type { Server } from 'node:http';
import { loadConfig } from '@webpush/config';
import { createDatabase } from '@webpush/db';
import { createRedisConnection } from '@webpush/queue';
import { pino } from 'pino';
import { startHealthServer } from './health-server.js';

/**
 * The delivery worker. For now it connects to PostgreSQL and Redis, serves its health endpoints,
 * and shuts down cleanly on SIGTERM; the fan-out processors arrive with the delivery pipeline.
 */
const config = loadConfig();
const log = pino({ level: config.logLevel, base: { service: 'worker' } });
for (const problem of config.problems) log.error(`CONFIGURATION PROBLEM: ${problem}`);

const database = createDatabase(config.databaseUrl, { max: 5 });
const redis = createRedisConnection(config.redisUrl, 'worker');
redis.on('error', (error) => log.warn({ err: error }, 'redis connection error'));

let server: Server | undefined;
try {
  server = await startHealthServer(config.port, config.host, {
    async ready() {
      await database.sql`select 1`;
      await redis.ping();
    },
  });
} catch (error) {
  log.fatal({ err: error }, `could not listen on ${config.host}:${config.port}`);
  process.exit(1);
}
redis.once('ready', () => log.info({ port: config.port }, 'worker ready'));

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'worker shutting down');
  const timer = setTimeout(() => {
    log.error('shutdown took longer than 30 s, exiting');
    process.exit(1);
  }, 30_000);
  timer.unref();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await redis.quit().catch(() => redis.disconnect());
  await database.close();
  log.info('worker stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
