import type { BenchDatabase } from './bench-database.js';

/** What one send leaves behind, per push: PostgreSQL by table, and the Redis keys of the run. */
export interface StorageFigures {
  pushes: number;
  /** Bytes per push each table grew by during the send (tables, indexes, TOAST; dead rows included: autovacuum as configured). */
  postgresPerPush: Record<string, number>;
  postgresTotalPerPush: number;
  /** The same after VACUUM FULL of those tables: the live rows alone. */
  postgresLivePerPush: number;
  /** One `shown` event row per push (`notification_events`, what a browser's report adds), bytes per event. */
  eventPerPush: number;
  /** Bytes the run's Redis keys hold once the send is complete, per push; and their peak while it ran. */
  redisAfterPerPush: number;
  redisPeakPerPush: number;
  /** PostgreSQL activity of the bench database during the send (pg_stat_database), per push. */
  commitsPerPush: number;
  rowsWrittenPerPush: number;
  walBytesPerPush: number | null;
}

/** Commits, rows written and WAL position of the database now (WAL is cluster-wide: other users count too). */
export async function databaseActivity(database: BenchDatabase) {
  const [row] = await database.handle.sql<{ commits: string; rows: string; wal: string }[]>`
    select pg_stat_get_db_xact_commit(d.oid)::text as commits,
      (pg_stat_get_db_tuples_inserted(d.oid) + pg_stat_get_db_tuples_updated(d.oid)
        + pg_stat_get_db_tuples_deleted(d.oid))::text as rows,
      pg_current_wal_lsn()::text as wal
    from pg_database d where d.datname = current_database()`;
  return { commits: Number(row?.commits ?? 0), rows: Number(row?.rows ?? 0), wal: row?.wal ?? '0/0' };
}

/** Bytes between two WAL positions. */
export async function walBytes(database: BenchDatabase, from: string, to: string): Promise<number> {
  const [row] = await database.handle.sql<{ bytes: string }[]>`select pg_wal_lsn_diff(${to}, ${from})::text as bytes`;
  return Number(row?.bytes ?? 0);
}

type Sizes = Record<string, number>;

/** Every table of the schema with its total size (heap, indexes, TOAST) in bytes. */
export async function tableSizes(database: BenchDatabase): Promise<Sizes> {
  const rows = await database.handle.sql<{ name: string; bytes: string }[]>`
    select c.relname as name, pg_total_relation_size(c.oid)::text as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind = 'r'`;
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
}

/** The commands `redisBytes` needs (the API's own connection: @webpush/api's types do not carry it). */
export interface RedisReader {
  scan(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[string, string[]]>;
  memory(subcommand: 'USAGE', key: string): Promise<unknown>;
}

/** Bytes of every Redis key of the run's prefix (MEMORY USAGE): other users of the Redis do not count. */
export async function redisBytes(redis: RedisReader, prefix: string): Promise<number> {
  let total = 0;
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
      cursor = next;
      for (const key of keys) total += Number((await redis.memory('USAGE', key)) ?? 0);
    } while (cursor !== '0');
  }
  return total;
}

export function grownBy(before: Sizes, after: Sizes): Sizes {
  const grown: Sizes = {};
  for (const [name, bytes] of Object.entries(after)) {
    const delta = bytes - (before[name] ?? 0);
    if (delta !== 0) grown[name] = delta;
  }
  return grown;
}

const whole = (value: number) => Math.round(value).toLocaleString('en-US');

/** The report's lines. */
export function describeStorage(figures: StorageFigures | null): string[] {
  if (figures === null) return [];
  const perTable = Object.entries(figures.postgresPerPush)
    .sort(([, a], [, b]) => b - a)
    .map(([name, bytes]) => `${name} ${bytes.toFixed(1)}`)
    .join(', ');
  const million = (perPush: number) => `${(perPush / 1.048576).toFixed(0)} MB`;
  return [
    `(s) storage of one send to ${whole(figures.pushes)}: PostgreSQL ${figures.postgresTotalPerPush.toFixed(1)} bytes a push ` +
      `as written (${perTable}), ${figures.postgresLivePerPush.toFixed(1)} live after VACUUM FULL; ` +
      `a shown event +${figures.eventPerPush.toFixed(1)} bytes; Redis ${figures.redisAfterPerPush.toFixed(2)} bytes a push left after ` +
      `completion, ${figures.redisPeakPerPush.toFixed(2)} at the peak sampled`,
    `    PostgreSQL during the send: ${figures.commitsPerPush.toFixed(4)} commits a push, ${figures.rowsWrittenPerPush.toFixed(2)} rows ` +
      `written a push (inserted + updated + deleted), WAL ${figures.walBytesPerPush === null ? '–' : figures.walBytesPerPush.toFixed(0)} bytes a push ` +
      `(cluster-wide: includes anything else the server wrote meanwhile)`,
    `    at 1,000,000 pushes: PostgreSQL +${million(figures.postgresTotalPerPush)} as written ` +
      `(+${million(figures.postgresTotalPerPush + figures.eventPerPush)} with one shown event each), Redis ` +
      `+${million(figures.redisAfterPerPush)} after completion`,
  ];
}
