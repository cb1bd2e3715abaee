import { type Config, configFromEnv } from './config.js';
import type { Env } from './env-schema.js';
import { ConfigValidationError } from './errors.js';
import { moduleThread } from './module-thread.js';

type ThreadAnswer = { env: Env } | { error: string; validation: boolean };

/**
 * `loadConfig` for a long-lived process with no other use for TypeBox (the worker): the environment
 * is validated on a short-lived thread, whose heap goes with it, and the configuration is built here
 * from the settings the thread sends back: TypeBox's schema and validator would otherwise stay in the
 * worker's heap for its whole life (docs/performance.md). Throws what `loadConfig` throws.
 */
export async function loadConfigOffThread(source: Record<string, string | undefined> = process.env): Promise<Config> {
  const thread = moduleThread(import.meta.url, 'parse-env-thread');
  try {
    const answer = await new Promise<ThreadAnswer>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
      thread.once('exit', (code) =>
        reject(new Error(`the configuration thread stopped (exit code ${code}) before answering`)),
      );
      thread.postMessage({ ...source });
    });
    if ('error' in answer) throw answer.validation ? new ConfigValidationError(answer.error) : new Error(answer.error);
    return configFromEnv(answer.env);
  } finally {
    await thread.terminate();
  }
}
