const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids in paths are checked before they reach PostgreSQL, which would reject a malformed uuid with an error. */
export const isUuid = (value: string): boolean => UUID.test(value);
