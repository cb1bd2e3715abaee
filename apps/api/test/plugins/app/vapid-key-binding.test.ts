import { createCipheriv, randomBytes } from 'node:crypto';
import { openSecret, vapidKeyContext } from '@webpush/secrets';
import { startFakePushService } from '@webpush/testing';
import t from 'tap';
import { resealLegacyVapidKeys } from '#plugins/app/vapid-key-migration.js';
import { buildApp } from '#src/app.js';
import { assertError } from '../../assertions.js';
import { bearer, buildTestApp, ownerWithKey } from '../../helper.js';

/** The earlier sealed format: AES-256-GCM without additional data, `v1.<iv>.<tag>.<ciphertext>`. */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

const push = await startFakePushService();
t.teardown(() => push.close());
const ctx = await buildTestApp(t, { PUSH_SERVICE_HOSTS: push.hostRule }, { pushExtraCa: push.caPem });
const { app, config } = ctx;
const sql = ctx.database.sql;
const key = config.encryptionKey;
if (!key) throw new Error('test config lacks ENCRYPTION_KEY');

const sealedOf = async (appId: string) =>
  String((await sql`select vapid_private_key_sealed from apps where id = ${appId}`)[0]?.vapid_private_key_sealed);
const sendTest = (appId: string, token: string) => {
  const subscription = push.subscribe();
  return app.inject({
    method: 'POST',
    url: `/api/v1/apps/${appId}/test-notification`,
    headers: bearer(token),
    payload: {
      subscription: { endpoint: subscription.endpoint, p256dh: subscription.p256dh, auth: subscription.auth },
    },
  });
};

t.test('a VAPID key is sealed bound to its app id: copied into another app’s row it does not open', async (t) => {
  const victim = await ownerWithKey(app, 'full');
  const attacker = await ownerWithKey(app, 'full');
  const victimSealed = await sealedOf(victim.app.id);
  t.match(victimSealed, /^v2\./, 'new keys use the bound format');
  t.match(openSecret(key, victimSealed, vapidKeyContext(victim.app.id)), /^[A-Za-z0-9_-]{43}$/, 'opens for its app');
  t.throws(() => openSecret(key, victimSealed, vapidKeyContext(attacker.app.id)), 'not for another app');

  await sql`update apps set vapid_private_key_sealed = ${victimSealed} where id = ${attacker.app.id}`;
  const before = push.received.length;
  assertError(t, await sendTest(attacker.app.id, attacker.user.token), 'CONFIG_ERROR');
  t.equal(push.received.length, before, 'nothing was signed with the copied key');
  t.equal((await sendTest(victim.app.id, victim.user.token)).statusCode, 200, 'the victim’s own app still sends');
});

t.test('legacy v1 keys keep working and are re-sealed, bound, at startup: idempotently', async (t) => {
  const owner = await ownerWithKey(app, 'full');
  const privateKey = openSecret(key, await sealedOf(owner.app.id), vapidKeyContext(owner.app.id));
  const legacy = sealV1(key, privateKey);
  await sql`update apps set vapid_private_key_sealed = ${legacy} where id = ${owner.app.id}`;

  t.equal((await sendTest(owner.app.id, owner.user.token)).statusCode, 200, 'a v1 row still opens');

  // A second API instance on the same database: its startup re-seals the row.
  const restarted = await buildApp(config, { logger: false });
  await restarted.ready();
  const resealed = await sealedOf(owner.app.id);
  t.match(resealed, /^v2\./, 're-sealed in the bound format at startup');
  t.equal(openSecret(key, resealed, vapidKeyContext(owner.app.id)), privateKey, 'to the same private key');
  t.strictSame(await resealLegacyVapidKeys(restarted), { resealed: 0, failed: 0 }, 'a second run changes nothing');
  await restarted.close();
  t.equal((await sendTest(owner.app.id, owner.user.token)).statusCode, 200, 'and it sends');

  // A row that does not open under this key (another ENCRYPTION_KEY) is left alone, not lost.
  const foreign = sealV1(randomBytes(32), privateKey);
  await sql`update apps set vapid_private_key_sealed = ${foreign} where id = ${owner.app.id}`;
  t.strictSame(await resealLegacyVapidKeys(app), { resealed: 0, failed: 1 });
  t.equal(await sealedOf(owner.app.id), foreign, 'left as it was');
});
