const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether every id is a well-formed uuid. Repository functions that take ids from a request check
 * them here, at the database boundary, and treat a malformed one as a row that does not exist:
 * PostgreSQL would refuse it with an error (22P02), and a route that forgot the check would answer 500.
 */
export const isUuid = (...values: string[]): boolean => values.every((value) => UUID.test(value));
