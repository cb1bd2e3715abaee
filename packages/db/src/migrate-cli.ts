import { loadConfig } from '@webpush/config';
import { ensureDatabase, runMigrations } from './migrate.js';

const config = loadConfig();
const target = new URL(config.databaseUrl);
const where = `${target.host}${target.pathname}`;
try {
  if (await ensureDatabase(config.databaseUrl)) console.log(`created database ${where}`);
  await runMigrations(config.databaseUrl);
  console.log(`migrations applied to ${where}`);
} catch (error) {
  console.error(`migration failed on ${where}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
