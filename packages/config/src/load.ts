import { type Config, configFromEnv } from './config.js';
import { parseEnv } from './parse-env.js';

/** Reads and validates the configuration once, at boot. Throws only for malformed values (and short secrets in production). */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  return configFromEnv(parseEnv(source));
}
