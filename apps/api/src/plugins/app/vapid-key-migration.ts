import { appsWithSealedKeyPrefix, replaceSealedVapidKey } from '@webpush/db';
import { openSecret, sealSecret, vapidKeyContext } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const BATCH = 200;

/**
 * Re-seals VAPID private keys written before they were bound to their app (`v1`) into the bound
 * format (`v2`, the app id as AES-GCM additional data). It needs ENCRYPTION_KEY, so it runs when the
 * API starts rather than in the SQL migrations: in batches, idempotently (a row is swapped only if
 * it is still the one read, so several instances starting at once agree), logged. Until it has run,
 * the API and the worker open both formats. A row that does not open under this ENCRYPTION_KEY is
 * logged and left as it is.
 */
export async function resealLegacyVapidKeys(app: FastifyInstance): Promise<{ resealed: number; failed: number }> {
  const key = app.config.encryptionKey;
  if (!key) return { resealed: 0, failed: 0 };
  let resealed = 0;
  let failed = 0;
  let afterId: string | null = null;
  for (;;) {
    const page = await appsWithSealedKeyPrefix(app.db, 'v1.', afterId, BATCH);
    for (const row of page) {
      try {
        const context = vapidKeyContext(row.id);
        const bound = sealSecret(key, openSecret(key, row.vapidPrivateKeySealed, context), context);
        if (await replaceSealedVapidKey(app.db, row.id, row.vapidPrivateKeySealed, bound)) resealed++;
      } catch (error) {
        failed++;
        app.log.error({ err: error, appId: row.id }, 'VAPID key does not open under ENCRYPTION_KEY: not re-sealed');
      }
    }
    if (page.length < BATCH) break;
    afterId = page[page.length - 1]?.id ?? null;
  }
  if (resealed > 0 || failed > 0) app.log.info({ resealed, failed }, 'VAPID keys re-sealed, bound to their app id');
  return { resealed, failed };
}

export default fp(
  async (app: FastifyInstance) => {
    app.addHook('onReady', async () => {
      // Never keeps the API from starting: the old format still opens.
      await resealLegacyVapidKeys(app).catch((error: unknown) =>
        app.log.error({ err: error }, 'could not re-seal legacy VAPID keys; will try again at the next start'),
      );
    });
  },
  { name: 'vapid-key-migration', dependencies: ['config', 'db'] },
);
