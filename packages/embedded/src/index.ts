export { POSTGRES_MAJOR } from './binaries.js';
export {
  DataDirectoryFromOtherMajorError,
  DataDirectoryInUseError,
  DataDirectoryNotWritableError,
  EmbeddedPostgresError,
  PortInUseError,
  UnsupportedPlatformError,
} from './errors.js';
export { type EmbeddedPostgres, type EmbeddedPostgresOptions, startEmbeddedPostgres } from './start.js';
