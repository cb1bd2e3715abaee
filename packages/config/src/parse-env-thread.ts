import { parentPort } from 'node:worker_threads';
import { ConfigValidationError } from './errors.js';
import { parseEnv } from './parse-env.js';

/** The thread of `loadConfigOffThread` (startup.ts): one environment in, its settings or its error out. */
parentPort?.once('message', (source: Record<string, string | undefined>) => {
  try {
    parentPort?.postMessage({ env: parseEnv(source) });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    parentPort?.postMessage({ error: message, validation: error instanceof ConfigValidationError });
  }
});
