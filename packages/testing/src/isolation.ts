import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { pause } from './wait-for.js';

/**
 * Each test run migrates one template database (scripts/test.mjs); each test file clones it into a
 * database of its own and gets a Redis key prefix of its own, so files run in parallel and runs on
 * one machine never collide.
 */
export const adminDatabaseUrl = (): string =>
  process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const testRedisUrl = (): string => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function databaseUrlFor(name: string): string {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export interface IsolatedResources {
  readonly databaseUrl: string;
  readonly databaseName: string;
  readonly redisUrl: string;
  readonly redisKeyPrefix: string;
  dispose(): Promise<void>;
}

export async function createIsolatedResources(): Promise<IsolatedResources> {
  const template = process.env.TEST_TEMPLATE_DATABASE;
  if (!template) throw new Error('TEST_TEMPLATE_DATABASE is not set: run the tests with `pnpm test`');
  const id = `${process.env.TEST_RUN_ID ?? 'adhoc'}_${randomBytes(4).toString('hex')}`;
  const databaseName = `wp_test_${id}`;
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`CREATE DATABASE "${databaseName}" TEMPLATE "${template}"`);
        break;
      } catch (error) {
        // Two clones of one template at the same instant can collide; a short retry settles it.
        if (attempt >= 10) throw error;
        await pause(100 + Math.random() * 200);
      }
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
  const redisKeyPrefix = `test:${id}`;
  const redisUrl = testRedisUrl();
  return {
    databaseUrl: databaseUrlFor(databaseName),
    databaseName,
    redisUrl,
    redisKeyPrefix,
    async dispose() {
      const cleanup = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
      } finally {
        await cleanup.end({ timeout: 5 });
      }
      await deleteRedisKeys(redisUrl, redisKeyPrefix);
    },
  };
}

export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    // BullMQ wraps the prefix in a hash tag: `{prefix}:queue:…`.
    for (const pattern of [`${prefix}*`, `{${prefix}}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
