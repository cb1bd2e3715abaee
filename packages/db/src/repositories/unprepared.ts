import type postgres from 'postgres';

/**
 * `sql` for a statement that postgres.js must not prepare: PostgreSQL then plans it on every call,
 * with the table's size as it is at that moment. A prepared statement may switch to a generic plan
 * after its fifth execution and keep it for the connection's life; made while `subscriptions` was
 * new and had no statistics (a new database before autovacuum's first ANALYZE, or autovacuum off),
 * that plan can find a subscription by (app_id, endpoint) through (app_id, status, created_at), with
 * the endpoint as a filter: every row of the app read on each call. Planned afresh, the same
 * statement uses the unique index once the table holds more than a few rows. The price is one more
 * round trip (postgres.js describes an unprepared statement before it runs it) and a parse.
 * packages/db/test/endpoint-plans.test.ts checks the plans.
 */
export const unprepared =
  <T extends readonly unknown[]>(sql: postgres.Sql) =>
  (strings: TemplateStringsArray, ...parameters: readonly postgres.ParameterOrFragment<never>[]) => {
    const query = sql<T extends postgres.Row[] ? T : never>(strings, ...parameters);
    // Read by postgres.js when it sends the query (a statement is prepared unless this says otherwise).
    (query as unknown as { options: { prepare?: boolean } }).options.prepare = false;
    return query;
  };
