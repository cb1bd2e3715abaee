import { loadConfig } from '@webpush/config';
import { runMigrations } from './migrate.js';

const config = loadConfig();
const target = new URL(config.databaseUrl);
try {
  await runMigrations(config.databaseUrl);
  console.log(`migrations applied to ${target.host}${target.pathname}`);
} catch (error) {
  console.error(
    `migration failed on ${target.host}${target.pathname}:`,
    error instanceof Error ? error.message : error,
  );
  process.exit(1);
}
