import { Value } from 'typebox/value';
import { type Env, EnvSchema } from './env-schema.js';
import { ConfigValidationError } from './errors.js';

/** The environment's settings, defaults applied and converted; throws ConfigValidationError for a malformed one. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const names = Object.keys(EnvSchema.properties);
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  // Value.Convert turns "2.5" into 2 for an integer setting: refuse anything but digits instead.
  const notIntegers = names.filter((name) => {
    const schema = (EnvSchema.properties as Record<string, { type?: unknown }>)[name];
    const value = picked[name];
    return schema?.type === 'integer' && value !== undefined && !/^\s*-?\d+\s*$/.test(value);
  });
  if (notIntegers.length > 0) {
    throw new ConfigValidationError(
      `invalid configuration: ${notIntegers.map((name) => `${name} must be a whole number`).join('; ')}`,
    );
  }
  const withDefaults = Value.Default(EnvSchema, picked);
  const converted = Value.Convert(EnvSchema, withDefaults);
  if (!Value.Check(EnvSchema, converted)) {
    const details = [...Value.Errors(EnvSchema, converted)]
      .map((error) => `${error.instancePath.slice(1) || '(root)'} ${error.message}`)
      .join('; ');
    throw new ConfigValidationError(`invalid configuration: ${details}`);
  }
  return converted;
}
