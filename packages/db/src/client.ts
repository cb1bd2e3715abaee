import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema.js';

/** `$client` is the postgres.js handle, for the few hot-path queries written as raw SQL. */
export type Database = PostgresJsDatabase<typeof schema> & { $client: postgres.Sql };
export type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

export interface DatabaseHandle {
  readonly db: Database;
  readonly sql: postgres.Sql;
  close(): Promise<void>;
}

export interface CreateDatabaseOptions {
  max?: number;
  /** Called with the text of every statement sent (postgres.js `debug`): tests count round trips with it. */
  onQuery?: (query: string) => void;
}

export function createDatabase(url: string, options: CreateDatabaseOptions = {}): DatabaseHandle {
  const { onQuery } = options;
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    ...(onQuery ? { debug: (_connection: number, query: string) => onQuery(query) } : {}),
  });
  const db = drizzle(sql, { schema });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}
