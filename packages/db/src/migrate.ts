import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

export const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url));

const INVALID_CATALOG_NAME = '3D000'; // "database does not exist"

/**
 * Creates the database named in `url` when it does not exist yet, so a fresh machine needs no
 * manual `createdb` before `pnpm dev` / `pnpm start`.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const probe = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await probe`select 1`;
    return false;
  } catch (error) {
    if ((error as { code?: string }).code !== INVALID_CATALOG_NAME) throw error;
  } finally {
    await probe.end({ timeout: 5 });
  }
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = postgres(maintenance.toString(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
    return true;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * Before migration 0041 partitions `notification_events`, the slow part of moving an existing table,
 * done here outside any transaction while the application keeps counting events: the new columns
 * (a constant default, no rewrite), the CHECK constraint that proves every row belongs to the
 * legacy range (added NOT VALID, then validated by a scan that blocks no reader or writer), and the
 * unique index matching the new key, built CONCURRENTLY. Migration 0041 then finds them and only
 * renames, creates and attaches: a lock of milliseconds whatever the table's size. Each step is
 * skipped when done, so an interrupted run resumes; nothing happens on a table already partitioned
 * (or not created yet). Statements that take a lock give up after `lockTimeout` rather than queue
 * every writer behind a long query.
 */
export async function prepareEventPartitions(url: string, lockTimeout = '5s'): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [table] = await sql<{ kind: string }[]>`
      select c.relkind as kind from pg_class c join pg_namespace s on s.oid = c.relnamespace
      where c.relname = 'notification_events' and s.nspname = current_schema()`;
    if (table?.kind !== 'r') return false;
    await sql`select set_config('lock_timeout', ${lockTimeout}, false)`;
    await sql.unsafe(`alter table notification_events
      add column if not exists app_id uuid default '00000000-0000-0000-0000-000000000000' not null,
      add column if not exists notification_created_at timestamp with time zone default '-infinity' not null`);
    const [check] = await sql`select 1 from pg_constraint
      where conrelid = 'notification_events'::regclass and conname = 'notification_events_legacy_check'`;
    if (!check) {
      await sql.unsafe(`alter table notification_events add constraint notification_events_legacy_check
        check (notification_created_at = '-infinity'::timestamptz) not valid`);
    }
    await sql.unsafe('alter table notification_events validate constraint notification_events_legacy_check');
    const [index] = await sql<{ valid: boolean }[]>`select i.indisvalid as valid from pg_index i
      join pg_class c on c.oid = i.indexrelid where c.relname = 'notification_events_legacy_key'`;
    if (index && !index.valid) await sql.unsafe('drop index concurrently notification_events_legacy_key');
    if (!index?.valid) {
      await sql.unsafe(`create unique index concurrently notification_events_legacy_key on notification_events
        (notification_id, subscription_id, type, app_id, notification_created_at)`);
    }
    const [key] = await sql`select 1 from pg_constraint
      where conrelid = 'notification_events'::regclass and conname = 'notification_events_legacy_key'`;
    if (!key) {
      await sql.unsafe(`alter table notification_events add constraint notification_events_legacy_key
        unique using index notification_events_legacy_key`);
    }
    return true;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The tables migration 0044 partitions beside `notifications`, with the unique key each needs. */
const NOTIFICATION_CHILDREN = [
  {
    table: 'notification_chunks',
    key: 'notification_id, first_subscription_id, attempt, app_id, notification_created_at',
  },
  { table: 'notification_chunk_answers', key: null },
  { table: 'notification_local_groups', key: 'notification_id, due_at, app_id, notification_created_at' },
] as const;

/**
 * Before migration 0044 partitions the notifications and the tables beside them, what
 * `prepareEventPartitions` does for the events, for each of them: the new columns of the three
 * children (a constant default, no rewrite), the CHECK constraints that prove every row belongs to
 * the legacy range (`notifications`: created before the start of the month after next; the
 * children: the constant), validated without blocking writers, and the unique indexes matching the
 * new keys, built CONCURRENTLY. The migration, run right after, then only renames, creates and
 * attaches. Each step is skipped when done; nothing happens once `notifications` is partitioned.
 */
export async function prepareNotificationPartitions(url: string, lockTimeout = '5s'): Promise<boolean> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const tables = await sql<{ name: string; kind: string }[]>`
      select c.relname as name, c.relkind as kind from pg_class c join pg_namespace s on s.oid = c.relnamespace
      where s.nspname = current_schema()
        and c.relname in ('notifications', 'notification_chunks', 'notification_chunk_answers', 'notification_local_groups')`;
    if (tables.length !== 4 || tables.some((table) => table.kind !== 'r')) return false;
    await sql`select set_config('lock_timeout', ${lockTimeout}, false)`;
    const constraintExists = async (table: string, name: string) =>
      (await sql`select 1 from pg_constraint where conrelid = ${table}::regclass and conname = ${name}`).length > 0;
    const uniqueKey = async (table: string, columns: string) => {
      const name = `${table}_legacy_key`;
      const [index] = await sql<{ valid: boolean }[]>`select i.indisvalid as valid from pg_index i
        join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`;
      if (index && !index.valid) await sql.unsafe(`drop index concurrently ${name}`);
      if (!index?.valid) await sql.unsafe(`create unique index concurrently ${name} on ${table} (${columns})`);
      if (!(await constraintExists(table, name))) {
        await sql.unsafe(`alter table ${table} add constraint ${name} unique using index ${name}`);
      }
    };
    for (const { table } of NOTIFICATION_CHILDREN) {
      await sql.unsafe(`alter table ${table}
        add column if not exists app_id uuid default '00000000-0000-0000-0000-000000000000' not null,
        add column if not exists notification_created_at timestamp with time zone default '-infinity' not null`);
      if (!(await constraintExists(table, `${table}_legacy_check`))) {
        await sql.unsafe(`alter table ${table} add constraint ${table}_legacy_check
          check (notification_created_at = '-infinity'::timestamptz) not valid`);
      }
    }
    if (!(await constraintExists('notifications', 'notifications_legacy_check'))) {
      // The bound migration 0044 gives the legacy range, as it computes it: a later start only moves it on.
      const [bound] = await sql<{ bound: string }[]>`
        select ((date_trunc('month', now() at time zone 'UTC') + interval '2 months') at time zone 'UTC')::text as bound`;
      await sql.unsafe(`alter table notifications add constraint notifications_legacy_check
        check (created_at < '${bound?.bound}'::timestamptz) not valid`);
    }
    for (const table of ['notifications', ...NOTIFICATION_CHILDREN.map((child) => child.table)]) {
      await sql.unsafe(`alter table ${table} validate constraint ${table}_legacy_check`);
    }
    await uniqueKey('notifications', 'id, app_id, created_at');
    for (const { table, key } of NOTIFICATION_CHILDREN) if (key !== null) await uniqueKey(table, key);
    return true;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

const UNDEFINED_TABLE = '42P01';

/**
 * True when drizzle's migrator would apply nothing: its newest applied migration is at least as new
 * as the journal's newest entry, the very test the migrator makes for each entry. One query, where
 * the migrator reads every migration file and takes a transaction, and preparing the partitions
 * takes a dozen statements: most starts find the database as the last one left it.
 */
export async function migrationsUpToDate(url: string): Promise<boolean> {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { when: number }[];
  };
  const newest = Math.max(...journal.entries.map((entry) => entry.when));
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ last: string | null }[]>`
      select max(created_at)::text as last from drizzle.__drizzle_migrations`;
    return row?.last != null && Number(row.last) >= newest;
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return false;
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function runMigrations(url: string): Promise<void> {
  if (await migrationsUpToDate(url)) return;
  await prepareEventPartitions(url);
  await prepareNotificationPartitions(url);
  // Only now: drizzle's modules are most of this file's import time, and most starts end above.
  const [{ drizzle }, { migrate }] = await Promise.all([
    import('drizzle-orm/postgres-js'),
    import('drizzle-orm/postgres-js/migrator'),
  ]);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrate(drizzle(sql), { migrationsFolder });
  } finally {
    await sql.end({ timeout: 5 });
  }
}
