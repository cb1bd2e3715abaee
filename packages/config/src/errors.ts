/** A setting that is malformed, or that cannot work with the others: the process must not start. */
export class ConfigValidationError extends Error {
  override readonly name = 'ConfigValidationError';
}
