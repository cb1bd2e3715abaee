import { randomBytes } from 'node:crypto';
import { type Config, loadConfig } from '@webpush/config';
import type { IsolatedResources } from './isolation.js';

/**
 * Where the API under test keeps its counters (COORDINATION): Redis, or its own process when the
 * test file runs as its in-process variant (`*.in-process.test.ts` sets TEST_COORDINATION=process).
 */
export const testCoordination = (): 'redis' | 'process' =>
  process.env.TEST_COORDINATION === 'process' ? 'process' : 'redis';

/** A full configuration for one test file: its own database and key space, fresh secrets. */
export function testConfig(resources: IsolatedResources, overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PUBLIC_URL: 'http://localhost:3000',
    DATABASE_URL: resources.databaseUrl,
    REDIS_URL: resources.redisUrl,
    REDIS_KEY_PREFIX: resources.redisKeyPrefix,
    COORDINATION: testCoordination(),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    API_KEY_PEPPER: randomBytes(32).toString('base64'),
    // Tests change plans and apps in the database directly, as `pnpm admin` does, and expect the next
    // request to see it; the tests of the principal cache turn it on.
    API_KEY_CACHE_TTL_MS: '0',
    ...overrides,
  });
}
