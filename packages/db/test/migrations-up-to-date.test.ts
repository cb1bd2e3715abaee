// `runMigrations` asks one question before anything else: is the newest migration of the journal
// applied? Only then does it skip the migrator; a database one migration behind is still migrated.

import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import t from 'tap';
import { migrationsFolder, migrationsUpToDate, runMigrations } from '../src/migrate.js';

const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
t.teardown(() => admin.end({ timeout: 5 }));

/** The committed migrations but the newest: a checkout that has just pulled a new one. */
const allButNewest = mkdtempSync(join(tmpdir(), 'wp-migrations-'));
cpSync(migrationsFolder, allButNewest, { recursive: true });
const journalPath = join(allButNewest, 'meta', '_journal.json');
const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
const newest = journal.entries.pop()?.tag;
writeFileSync(journalPath, JSON.stringify(journal));
t.teardown(() => rmSync(allButNewest, { recursive: true, force: true }));

async function emptyDatabase(t: Tap.Test) {
  const name = `wp_test_${process.env.TEST_RUN_ID ?? 'adhoc'}_${randomBytes(4).toString('hex')}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  t.teardown(async () => {
    await sql.end({ timeout: 5 });
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  return { url: url.toString(), sql };
}

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
  t.equal(applied?.count, journal.entries.length + 1, 'every migration of the journal is applied');
});
