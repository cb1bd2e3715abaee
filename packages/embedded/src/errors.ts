/**
 * The embedded PostgreSQL could not start. `message` is one line that says what to do, fit to print
 * as it is: the caller shows it without a stack trace.
 */
export class EmbeddedPostgresError extends Error {
  override readonly name: string = 'EmbeddedPostgresError';
}

/** The data directory was made by another PostgreSQL major, whose files this server cannot read. */
export class DataDirectoryFromOtherMajorError extends EmbeddedPostgresError {
  override readonly name = 'DataDirectoryFromOtherMajorError';
}

/** The data directory, or the directory it would be made in, cannot be written by the server's user. */
export class DataDirectoryNotWritableError extends EmbeddedPostgresError {
  override readonly name = 'DataDirectoryNotWritableError';
}

/** A PostgreSQL started by another launcher still runs on the same data directory. */
export class DataDirectoryInUseError extends EmbeddedPostgresError {
  override readonly name = 'DataDirectoryInUseError';
}

/** The loopback port asked for is taken by another program. */
export class PortInUseError extends EmbeddedPostgresError {
  override readonly name = 'PortInUseError';
}

/** No PostgreSQL binaries were installed for this operating system and processor. */
export class UnsupportedPlatformError extends EmbeddedPostgresError {
  override readonly name = 'UnsupportedPlatformError';
}
