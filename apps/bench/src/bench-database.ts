import { randomBytes, randomUUID } from 'node:crypto';
import {
  createApiKey,
  createAppWithinLimit,
  createDatabase,
  createUser,
  type DatabaseHandle,
  setUserPlan,
} from '@webpush/db';
import { ensureDatabase, runMigrations } from '@webpush/db/migrate';
import type { PushTarget } from '@webpush/push';
import { API_KEY_PREFIX, generateToken, keyedHash, sealSecret, vapidKeyContext } from '@webpush/secrets';
import postgres from 'postgres';
import webpush from 'web-push';
import type { PooledKey } from './key-pool.js';

export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  readonly handle: DatabaseHandle;
  drop(): Promise<void>;
}

/** A database of this run's own, `wp_bench_<random>`, migrated from the committed migrations. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `wp_bench_${randomBytes(4).toString('hex')}`;
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  const url = target.toString();
  await ensureDatabase(url);
  const drop = async () => {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await admin.end({ timeout: 5 });
    }
  };
  try {
    await runMigrations(url);
  } catch (error) {
    await drop();
    throw error;
  }
  const handle = createDatabase(url, { max: 2 });
  return {
    name,
    url,
    handle,
    async drop() {
      await handle.close();
      await drop();
    },
  };
}

export interface BenchApp {
  id: string;
  /** A `notify` key of the app. */
  secret: string;
  vapid: { publicKey: string; privateKey: string };
}

export interface BenchTenant {
  userId: string;
  /** The app with the subscriptions. */
  app: BenchApp;
  /** An app without subscribers: POST /notify to it is the accept path alone. */
  emptyApp: BenchApp;
}

/** A user on `plan` (by default `enterprise`: no plan limits) with two apps, each with VAPID keys and a `notify` key. */
export async function seedTenant(
  database: BenchDatabase,
  secrets: { encryptionKey: Buffer; apiKeyPepper: Buffer },
  plan: 'pro' | 'enterprise' = 'enterprise',
): Promise<BenchTenant> {
  const { db } = database.handle;
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(db, { email, passwordHash: 'not-a-password-hash: this user never logs in' });
  if (!user) throw new Error('could not create the bench user');
  await setUserPlan(db, email, plan, null);

  return {
    userId: user.id,
    app: await createBenchApp(database, secrets, user.id, 'bench'),
    emptyApp: await createBenchApp(database, secrets, user.id, 'bench (empty)'),
  };
}

/** What the endpoints of `seedSubscriptions` start with: subscription n's is this followed by n. */
export const seededEndpointPrefix = (origin: string) => `${origin}/push/`;

/** An app of `userId` with VAPID keys and a `notify` key. */
export async function createBenchApp(
  database: BenchDatabase,
  secrets: { encryptionKey: Buffer; apiKeyPepper: Buffer },
  userId: string,
  name: string,
): Promise<BenchApp> {
  const { db } = database.handle;
  const vapid = webpush.generateVAPIDKeys();
  const id = randomUUID();
  const app = await createAppWithinLimit(
    db,
    userId,
    {
      id,
      name,
      vapidPublicKey: vapid.publicKey,
      vapidPrivateKeySealed: sealSecret(secrets.encryptionKey, vapid.privateKey, vapidKeyContext(id)),
    },
    null,
  );
  if (app === 'limit') throw new Error('the bench user hit an app limit');
  const secret = generateToken(API_KEY_PREFIX);
  const key = await createApiKey(
    db,
    userId,
    app.id,
    { name: 'bench', scope: 'notify', keyHash: keyedHash(secrets.apiKeyPepper, secret) },
    1,
    null,
  );
  if (!key || key === 'limit') throw new Error('could not create the bench API key');
  return { id: app.id, secret, vapid };
}

const SEED_BATCH = 50_000;

/**
 * `count` active subscriptions of `appId` with endpoints `<origin>/push/1…count`, subscription n
 * using key pair n mod pool size, inserted by PostgreSQL itself (INSERT … SELECT generate_series)
 * in batches, so a million rows take seconds and no memory here.
 */
export async function seedSubscriptions(
  database: BenchDatabase,
  appId: string,
  count: number,
  origin: string,
  pool: readonly PooledKey[],
  onProgress: (done: number) => void = () => {},
  /** Endpoint numbers start after this, so that a second app's endpoints differ from the first's. */
  offset = 0,
): Promise<void> {
  const { sql } = database.handle;
  const p256dh = pool.map((key) => key.p256dh);
  const auth = pool.map((key) => key.auth);
  for (let first = offset + 1; first <= offset + count; first += SEED_BATCH) {
    const last = Math.min(offset + count, first + SEED_BATCH - 1);
    await sql`
      insert into subscriptions (app_id, endpoint, p256dh, auth)
      select ${appId}::uuid, ${seededEndpointPrefix(origin)}::text || n, k.p256dh, k.auth
      from generate_series(${first}::int, ${last}::int) as n
      join unnest(${p256dh}::text[], ${auth}::text[]) with ordinality as k(p256dh, auth, i)
        on k.i = n % ${pool.length} + 1`;
    onProgress(last - offset);
  }
}

/** The first `limit` subscriptions of the app, in the order the worker's fan-out takes them. */
export async function loadTargets(database: BenchDatabase, appId: string, limit: number): Promise<PushTarget[]> {
  const { sql } = database.handle;
  const rows = await sql<PushTarget[]>`
    select endpoint, p256dh, auth from subscriptions where app_id = ${appId} order by id limit ${limit}`;
  return rows.map(({ endpoint, p256dh, auth }) => ({ endpoint, p256dh, auth }));
}
