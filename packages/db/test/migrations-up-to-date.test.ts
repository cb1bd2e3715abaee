// `runMigrations` asks one question before anything else: is the newest migration of the journal
// applied? Only then does it skip the migrator; a database one migration behind is still migrated.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import t from 'tap';
import { migrationsFolder, migrationsUpToDate, runMigrations } from '../src/migrate.js';
import { adminUrl, emptyDatabase as emptyDatabaseOf, migrationsWhere } from './migration-fixtures.js';

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
t.teardown(() => admin.end({ timeout: 5 }));
const emptyDatabase = (t: Tap.Test) => emptyDatabaseOf(t, admin);

/** The committed migrations but the newest: a checkout that has just pulled a new one. */
const { entries } = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
  entries: { tag: string }[];
};
const newest = entries.at(-1)?.tag;
const allButNewest = migrationsWhere(t, (_entry, index) => index < entries.length - 1);

t.test('a database never migrated is not up to date, and is migrated', async (t) => {
  const { url } = await emptyDatabase(t);
  t.equal(await migrationsUpToDate(url), false);
  await runMigrations(url);
  t.equal(await migrationsUpToDate(url), true);
  await runMigrations(url);
  t.pass('a second run on an up-to-date database does nothing and does not fail');
});

t.test(`a database without the newest migration (${newest}) is migrated to it`, async (t) => {
  const { url, sql } = await emptyDatabase(t);
  await migrate(drizzle(sql), { migrationsFolder: allButNewest });
  t.equal(await migrationsUpToDate(url), false);
  await runMigrations(url);
  t.equal(await migrationsUpToDate(url), true);
  const [applied] = await sql<{ count: number }[]>`select count(*)::int as count from drizzle.__drizzle_migrations`;
  t.equal(applied?.count, entries.length, 'every migration of the journal is applied');
});
