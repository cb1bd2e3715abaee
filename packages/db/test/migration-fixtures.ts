// What the migration tests start from: the committed migrations cut short, as a checkout before a
// given one had them, and empty databases of this run that are dropped after their test.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Test } from 'tap';
import { migrationsFolder } from '../src/migrate.js';

export const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A copy of the migrations folder whose journal keeps only the entries `keep` accepts (the SQL
 * files stay: drizzle applies what the journal lists), removed when `t` ends.
 */
export function migrationsWhere(t: Test, keep: (entry: { tag: string }, index: number, all: unknown[]) => boolean) {
  const folder = mkdtempSync(join(tmpdir(), 'wp-migrations-'));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
  journal.entries = journal.entries.filter(keep);
  writeFileSync(journalPath, JSON.stringify(journal));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A new, empty database of this run, with a one-connection client; both gone when `t` ends. */
export async function emptyDatabase(t: Test, admin: postgres.Sql) {
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
